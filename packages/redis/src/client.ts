/**
 * The one thing the store needs from a Redis client: node-redis's `set()` with the v5/v6 options
 * object. Written structurally, so `@gatehouse/redis` imports nothing from `redis` at run time and any
 * node-redis v5 or v6 client fits: `createClient()`, `createCluster()`, `createSentinel()`,
 * `createClientPool()`, or a proxy from `client.withCommandOptions()`.
 *
 * @module
 */

/**
 * The options the store passes to `set()`: `SET key value PX <ttl> NX`.
 *
 * @example
 * ```ts
 * const options: RedisSetOptions = { expiration: { type: 'PX', value: 300_000 }, condition: 'NX' };
 * await client.set('gatehouse:dpop:Zm9v', '1', options); // 'OK', or null when the key exists
 * ```
 */
export interface RedisSetOptions {
  /** Time to live of the key, in milliseconds. */
  readonly expiration: { readonly type: 'PX'; readonly value: number };
  /** Only set the key when it does not exist. */
  readonly condition: 'NX';
}

/**
 * A connected node-redis client (v5 or v6), as far as the store uses it. The application creates,
 * connects, configures and closes it; the store only sends `SET … NX PX` through it.
 *
 * @example
 * ```ts
 * import { createClient } from 'redis';
 * import type { RedisSetClient } from '@gatehouse/redis';
 *
 * const client: RedisSetClient = await createClient({ url: process.env.REDIS_URL })
 *   .on('error', (err) => console.error('redis', err))
 *   .connect();
 * ```
 */
export interface RedisSetClient {
  /**
   * `SET key value [options]`: resolves `'OK'` when the key was set and `null` when the `NX`
   * condition failed; rejects when the command could not be sent or Redis answered an error.
   */
  set(key: string, value: string, options: RedisSetOptions): Promise<unknown>;
}
