/**
 * Options of `createRedisReplayStore()`, the package's one frozen {@link DEFAULTS} object, and
 * {@link resolveOptions}, the only place where options and defaults are merged and validated. A bad
 * or unknown option throws a `TypeError` naming it when the store is created, never at request time.
 *
 * @module
 */
import type { RedisSetClient } from './client.js';

/**
 * Default values of every option. Durations are milliseconds.
 *
 * @example
 * ```ts
 * import { DEFAULTS } from '@gatehouse/redis';
 *
 * DEFAULTS.keyPrefix; // 'gatehouse:dpop:'
 * DEFAULTS.timeout; // 1000
 * ```
 */
export const DEFAULTS = Object.freeze({
  /**
   * First part of every key: `gatehouse:dpop:<id>`. Keeps the proofs apart from the application's own
   * keys; give each API its own prefix when several APIs share one Redis and must not share proofs.
   */
  keyPrefix: 'gatehouse:dpop:',
  /**
   * Reject `record()` when Redis has not answered after this many ms (1 s). A healthy Redis answers
   * in well under a millisecond on a LAN; the timeout only bounds how long a request waits on a Redis
   * that hangs or is unreachable before the verifier answers 503.
   */
  timeout: 1_000,
});

/** Largest `timeout` accepted, in ms (1 min). */
const MAX_TIMEOUT = 60_000;

/**
 * Options of `createRedisReplayStore()`.
 *
 * @example
 * ```ts
 * import { createClient } from 'redis';
 *
 * const options: RedisReplayStoreOptions = {
 *   client: await createClient({ url: 'redis://redis.internal:6379' }).on('error', console.error).connect(),
 *   keyPrefix: 'orders-api:dpop:',
 *   timeout: 250,
 * };
 * ```
 */
export interface RedisReplayStoreOptions {
  /**
   * A node-redis v5 or v6 client (or cluster, sentinel, pool) that the application created and
   * connects, with an `'error'` listener, and closes on shutdown. The store never connects, closes or
   * reconfigures it. With `disableOfflineQueue: true` on the client, `record()` rejects at once while
   * Redis is unreachable instead of after `timeout`.
   */
  readonly client: RedisSetClient;
  /** First part of every key, before the proof id. Non-empty. Default `'gatehouse:dpop:'`. */
  readonly keyPrefix?: string;
  /** Milliseconds after which `record()` rejects if Redis has not answered: 1 to 60000. Default 1000. */
  readonly timeout?: number;
}

/**
 * Options after validation and defaults (what {@link resolveOptions} returns).
 *
 * @example
 * ```ts
 * const { keyPrefix, timeout } = resolveOptions({ client }); // 'gatehouse:dpop:', 1000
 * ```
 */
export interface ResolvedOptions {
  readonly client: RedisSetClient;
  readonly keyPrefix: string;
  readonly timeout: number;
}

const KNOWN: ReadonlySet<string> = new Set(['client', 'keyPrefix', 'timeout']);

function fail(option: string, problem: string): never {
  throw new TypeError(`"${option}" option ${problem}`);
}

/**
 * Validate `options` and merge them with {@link DEFAULTS}.
 *
 * @throws TypeError naming the first bad or unknown option.
 * @example
 * ```ts
 * resolveOptions({ client, timeout: 0 });
 * // TypeError: "timeout" option must be an integer from 1 to 60000 (milliseconds)
 * resolveOptions({ client, prefix: 'x:' });
 * // TypeError: unknown option "prefix" (createRedisReplayStore takes client, keyPrefix, timeout)
 * ```
 */
export function resolveOptions(options: RedisReplayStoreOptions): ResolvedOptions {
  if (options === null || typeof options !== 'object') throw new TypeError('options must be an object');
  for (const key of Object.keys(options)) {
    if (KNOWN.has(key)) continue;
    const hint =
      key === 'url'
        ? '; the store does not open connections: pass a connected client, e.g. client: await createClient({ url }).connect()'
        : '';
    throw new TypeError(
      `unknown option "${key}" (createRedisReplayStore takes ${[...KNOWN].join(', ')})${hint}`,
    );
  }
  const { client } = options;
  if (
    client === null ||
    (typeof client !== 'object' && typeof client !== 'function') ||
    typeof client.set !== 'function'
  ) {
    fail(
      'client',
      'must be a node-redis client with a set() method, e.g. await createClient({ url }).connect() from "redis"',
    );
  }
  const keyPrefix = options.keyPrefix === undefined ? DEFAULTS.keyPrefix : options.keyPrefix;
  if (typeof keyPrefix !== 'string' || keyPrefix.length === 0)
    fail('keyPrefix', 'must be a non-empty string');
  const timeout = options.timeout === undefined ? DEFAULTS.timeout : options.timeout;
  if (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout < 1 || timeout > MAX_TIMEOUT) {
    fail('timeout', `must be an integer from 1 to ${MAX_TIMEOUT} (milliseconds)`);
  }
  return Object.freeze({ client, keyPrefix, timeout });
}
