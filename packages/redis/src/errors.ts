/**
 * The one error `record()` rejects with when Redis does not give an answer, so the verifier fails the
 * request (503) instead of accepting a proof it could not check. Configuration mistakes are not here:
 * they are `TypeError`s thrown by `createRedisReplayStore()`.
 *
 * Messages name neither the key nor the proof id.
 *
 * @module
 */

/**
 * Why Redis gave no answer. Stable: safe to switch on; never renamed within a major version.
 *
 * - `timeout`: no reply within the store's `timeout` (Redis hung, overloaded, or unreachable while
 *   the client queues commands until it reconnects);
 * - `command_failed`: the client rejected the command (closed or offline client, connection lost,
 *   or an error reply such as `OOM`, `READONLY`, `NOAUTH`); the original error is the `cause`;
 * - `unexpected_reply`: the client's `set()` resolved something other than `'OK'` or `null` (for
 *   instance a node-redis client in `legacy()` callback mode, which resolves nothing).
 *
 * @example
 * ```ts
 * const reason: RedisReplayStoreErrorReason = 'timeout';
 * ```
 */
export type RedisReplayStoreErrorReason = 'timeout' | 'command_failed' | 'unexpected_reply';

/**
 * `record()` could not tell whether a proof id is new. The verifier turns any rejection of its replay
 * store into a 503 response; log this error's `reason` (and `cause`) to see what Redis did.
 *
 * @example
 * ```ts
 * import { RedisReplayStoreError } from '@gatehouse/redis';
 *
 * try {
 *   await store.record(id, expiresAt);
 * } catch (err) {
 *   if (err instanceof RedisReplayStoreError && err.reason === 'timeout') metrics.increment('redis.timeout');
 *   throw err;
 * }
 * ```
 */
export class RedisReplayStoreError extends Error {
  /** The class name, spelled out so that minified builds keep it. */
  override readonly name = 'RedisReplayStoreError';
  /** Why Redis gave no answer. */
  readonly reason: RedisReplayStoreErrorReason;

  constructor(reason: RedisReplayStoreErrorReason, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.reason = reason;
  }
}
