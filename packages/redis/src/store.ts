/**
 * {@link createRedisReplayStore}: core's `ReplayStore` on Redis. Each `record()` is one atomic command,
 * `SET <keyPrefix><id> 1 NX PX <ttl>`, so of any number of concurrent calls with the same id, from any
 * number of API instances sharing the Redis, exactly one resolves `true`. Redis drops the key when
 * the proof can no longer be accepted.
 *
 * @module
 */
import type { ReplayStore } from '@gatehouse/core';
import type { RedisSetClient, RedisSetOptions } from './client.js';
import { RedisReplayStoreError } from './errors.js';
import { type RedisReplayStoreOptions, resolveOptions } from './options.js';

/**
 * The store `createRedisReplayStore()` returns: a `ReplayStore` whose `record()` always returns a
 * promise, with its resolved settings.
 *
 * @example
 * ```ts
 * const store: RedisReplayStore = createRedisReplayStore({ client });
 * store.keyPrefix; // 'gatehouse:dpop:'
 * await store.record('pTlVD0nE8m6m8r3h3Yk5oq', Date.now() + 300_000); // true, then false
 * ```
 */
export interface RedisReplayStore extends ReplayStore {
  /**
   * Record `id` until `expiresAt` (ms since the epoch) with `SET <keyPrefix><id> 1 NX PX <ttl>`,
   * `ttl = expiresAt − now`, at least 1 ms. Resolves `true` when Redis set the key (the proof is
   * fresh) and `false` when the key existed (a replay). Rejects with a {@link RedisReplayStoreError}
   * when Redis gives no answer within `timeout`, and with a `TypeError` for an empty `id` or a
   * non-finite `expiresAt`. Never resolves without Redis's answer.
   */
  record(id: string, expiresAt: number): Promise<boolean>;
  /** First part of every key. */
  readonly keyPrefix: string;
  /** Milliseconds `record()` waits for Redis before it rejects. */
  readonly timeout: number;
}

/**
 * Create a replay store on Redis for `@gatehouse/core`'s DPoP verification, shared by every API
 * instance that uses the same Redis and key prefix.
 *
 * The application owns the connection: it passes a node-redis client it created and connected (and
 * closes it on shutdown); the store only sends one `SET … NX PX` per `record()`. A proof whose
 * `expiresAt` has already passed is still sent, with a 1 ms ttl, so the answer always comes from Redis
 * (`false` while a record of that id is still held).
 *
 * @throws TypeError naming the option when an option is missing, invalid or unknown.
 * @example
 * ```ts
 * import { createVerifier } from '@gatehouse/core';
 * import { createRedisReplayStore } from '@gatehouse/redis';
 * import { createClient } from 'redis';
 *
 * const client = await createClient({ url: process.env.REDIS_URL })
 *   .on('error', (err) => console.error('redis', err))
 *   .connect();
 * const verifier = createVerifier({
 *   issuer: 'https://id.example.com/oidc',
 *   audience: 'https://api.example.com/orders',
 *   dpop: { replayStore: createRedisReplayStore({ client }) },
 * });
 * ```
 */
export function createRedisReplayStore(options: RedisReplayStoreOptions): RedisReplayStore {
  const { client, keyPrefix, timeout } = resolveOptions(options);

  const record = (id: string, expiresAt: number): Promise<boolean> => {
    if (typeof id !== 'string' || id.length === 0) {
      return Promise.reject(new TypeError('record(): id must be a non-empty string'));
    }
    if (typeof expiresAt !== 'number' || !Number.isFinite(expiresAt)) {
      return Promise.reject(
        new TypeError('record(): expiresAt must be a finite number (ms since the epoch)'),
      );
    }
    const ttl = Math.max(1, Math.ceil(expiresAt - Date.now()));
    return setIfAbsent(client, keyPrefix + id, ttl, timeout);
  };

  return Object.freeze({ record, keyPrefix, timeout });
}

/** `SET key 1 PX ttl NX` with a deadline: `true` when set, `false` when the key existed. */
function setIfAbsent(client: RedisSetClient, key: string, ttl: number, timeout: number): Promise<boolean> {
  return new Promise<boolean>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new RedisReplayStoreError('timeout', `Redis did not answer SET within ${timeout} ms`));
    }, timeout);
    timer.unref();
    const failed = (err: unknown) => {
      clearTimeout(timer);
      const detail = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      reject(new RedisReplayStoreError('command_failed', `Redis SET failed (${detail})`, { cause: err }));
    };
    const options: RedisSetOptions = { expiration: { type: 'PX', value: ttl }, condition: 'NX' };
    let reply: Promise<unknown>;
    try {
      reply = client.set(key, '1', options);
    } catch (err) {
      // Some clients throw synchronously (a closed client, a bad argument) instead of rejecting.
      failed(err);
      return;
    }
    Promise.resolve(reply).then((value) => {
      clearTimeout(timer);
      if (value === null) resolve(false);
      // 'OK', or a Buffer holding it when the client maps simple strings to Buffers.
      else if (value !== undefined && String(value) === 'OK') resolve(true);
      else {
        const hint =
          value === undefined ? ' (a legacy-mode client? pass one in its default promise mode)' : '';
        reject(new RedisReplayStoreError('unexpected_reply', `set() resolved neither "OK" nor null${hint}`));
      }
    }, failed);
  });
}
