/**
 * `@gatehouse/redis`: a DPoP replay store on Redis for `@gatehouse/core`, so that several instances of
 * an API accept each DPoP proof at most once (RFC 9449 §11.1). One atomic `SET … NX PX` per proof,
 * through a node-redis client the application owns, with a timeout.
 *
 * @example
 * ```ts
 * import { createVerifier } from '@gatehouse/core';
 * import { createRedisReplayStore } from '@gatehouse/redis';
 * import { createClient } from 'redis';
 *
 * const client = await createClient({ url: process.env.REDIS_URL }).on('error', console.error).connect();
 * const verifier = createVerifier({
 *   issuer: 'https://id.example.com/oidc',
 *   audience: 'https://api.example.com/orders',
 *   dpop: { replayStore: createRedisReplayStore({ client }) },
 * });
 * ```
 *
 * @module
 */
export type { RedisSetClient, RedisSetOptions } from './client.js';
export { RedisReplayStoreError, type RedisReplayStoreErrorReason } from './errors.js';
export { DEFAULTS, type RedisReplayStoreOptions, type ResolvedOptions, resolveOptions } from './options.js';
export { createRedisReplayStore, type RedisReplayStore } from './store.js';
