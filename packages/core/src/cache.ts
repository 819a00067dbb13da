/**
 * The per-verifier cache of verified results, keyed on the exact token string. An entry never outlives
 * the token (`exp`, or `iat + maxTokenAge`, plus tolerance) nor the key cache's max age, and the whole
 * cache is dropped whenever the key set changes. Being per verifier, it can never mix results checked
 * under different options (another audience, issuer or algorithm list). Failures are never cached.
 *
 * Keys are the raw tokens: hashing would cost more than the lookup (≈3 µs against ≈0.1 µs), and the
 * cached {@link AuthInfo} holds the token anyway. The token length cap bounds the memory per entry.
 *
 * @module
 */
import { LRUCache } from 'lru-cache';
import type { AuthInfo } from './types.js';

interface Entry {
  readonly info: AuthInfo;
  /** Seconds since epoch. */
  readonly validUntil: number;
}

/** A bounded LRU of verified tokens. */
export class ResultCache {
  readonly #lru: LRUCache<string, Entry>;
  readonly #maxAge: number;

  constructor(max: number, maxAgeMs: number) {
    this.#lru = new LRUCache<string, Entry>({ max });
    this.#maxAge = maxAgeMs / 1000;
  }

  /** The cached result for `token` if it is still valid at `now` (seconds). */
  get(token: string, now: number): AuthInfo | undefined {
    const entry = this.#lru.get(token);
    if (entry === undefined) return undefined;
    if (now >= entry.validUntil) {
      this.#lru.delete(token);
      return undefined;
    }
    return entry.info;
  }

  /** Whether `token` is held (valid or not yet evicted); used to skip re-checking its syntax. */
  has(token: string): boolean {
    return this.#lru.has(token);
  }

  set(token: string, info: AuthInfo, validUntil: number, now: number): void {
    const until = Math.min(validUntil, now + this.#maxAge);
    if (until > now) this.#lru.set(token, { info, validUntil: until });
  }

  clear(): void {
    this.#lru.clear();
  }

  get size(): number {
    return this.#lru.size;
  }
}
