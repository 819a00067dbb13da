/**
 * Where DPoP proof identifiers are remembered, so that a proof is accepted at most once within the
 * window in which its `iat` is acceptable (RFC 9449 §11.1).
 *
 * {@link ReplayStore} is the whole contract: one method that records an identifier atomically and says
 * whether it was new. {@link MemoryReplayStore} is the default, for a single process; an API that runs
 * several instances passes a shared store (`@gatehouse/redis` ships one on Redis), or a proof accepted
 * by one instance could be replayed at another.
 *
 * @module
 */
import { LRUCache } from 'lru-cache';

/**
 * A shared record of proof identifiers already seen.
 *
 * @example
 * ```ts
 * import type { ReplayStore } from '@gatehouse/core';
 *
 * // Any store with an atomic "set if absent, with expiry" works; on Redis: SET key 1 NX PX ttl.
 * const store: ReplayStore = {
 *   async record(id, expiresAt) {
 *     const ttl = Math.max(1, expiresAt - Date.now());
 *     return (await redis.set(`dpop:${id}`, '1', { NX: true, PX: ttl })) === 'OK';
 *   },
 * };
 * ```
 */
export interface ReplayStore {
  /**
   * Record `id` until `expiresAt`, atomically: of several concurrent calls with the same `id` (in this
   * process or any other sharing the store), exactly one resolves `true`.
   *
   * @param id - an opaque identifier of the proof, already scoped to the proof's key: its RFC 7638
   *   thumbprint (43 base64url characters) followed by the proof's `jti` (1–256 characters chosen by the
   *   client, so any characters). Stores need not hash or prefix it, beyond their own namespace.
   * @param expiresAt - milliseconds since the epoch after which the proof can no longer be accepted,
   *   so the record may be dropped.
   * @returns `true` when `id` was not recorded (the proof is fresh), `false` when it was (a replay).
   *   A store that cannot answer should throw (or reject): the request then fails with 503, never 200.
   */
  record(id: string, expiresAt: number): boolean | Promise<boolean>;
}

/** Options of {@link MemoryReplayStore}. */
export interface MemoryReplayStoreOptions {
  /**
   * Most identifiers held. When full, the one used least recently is dropped before its expiry, which
   * would let that one proof be replayed within its window: size it for the proofs per second times
   * the window (`iatWindow + iatLeeway`). Default 100000 (about 10 MB).
   */
  max?: number;
}

/**
 * The in-process {@link ReplayStore}: a bounded map of identifiers with their expiry. Correct for one
 * process only; several API instances need a shared store.
 *
 * @example
 * ```ts
 * import { createVerifier, MemoryReplayStore } from '@gatehouse/core';
 *
 * const verifier = createVerifier({
 *   issuer: 'https://id.example.com/oidc',
 *   audience: 'https://api.example.com/orders',
 *   dpop: { replayStore: new MemoryReplayStore({ max: 500_000 }) },
 * });
 * ```
 */
export class MemoryReplayStore implements ReplayStore {
  /** Identifier → its expiry (ms since epoch), compared with `Date.now()` like the verifier's clock. */
  readonly #seen: LRUCache<string, number>;
  #evictedEarly = 0;

  constructor(options: MemoryReplayStoreOptions = {}) {
    if (options === null || typeof options !== 'object') throw new TypeError('options must be an object');
    const max = options.max ?? 100_000;
    if (typeof max !== 'number' || !Number.isInteger(max) || max < 1)
      throw new TypeError('"max" option must be a positive integer');
    this.#seen = new LRUCache<string, number>({
      max,
      // Expired records are dropped first in practice: they are the least recently used.
      dispose: (until, _id, reason) => {
        if (reason === 'evict' && until > Date.now()) this.#evictedEarly++;
      },
    });
  }

  record(id: string, expiresAt: number): boolean {
    const now = Date.now();
    const held = this.#seen.peek(id);
    if (held !== undefined && held > now) return false;
    if (expiresAt > now) this.#seen.set(id, expiresAt);
    else if (held !== undefined) this.#seen.delete(id);
    return true;
  }

  /** Identifiers held now (expired ones count until they are looked up again or evicted). */
  get size(): number {
    return this.#seen.size;
  }

  /** Identifiers dropped before their expiry because the store was full: a sign `max` is too small. */
  get evictedEarly(): number {
    return this.#evictedEarly;
  }
}
