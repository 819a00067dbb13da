/**
 * The per-verifier cache of verified results, keyed on the exact token string. An entry never outlives
 * the token (`exp`, or `iat + maxTokenAge`, plus tolerance) nor the key cache's max age, and the whole
 * cache is dropped whenever the key set changes. Being per verifier, it can never mix results checked
 * under different options (another audience, issuer or algorithm list). Failures are never cached.
 *
 * Entries are found by the token's last {@link KEY_LENGTH} characters (the end of its signature) and
 * hold the whole token, which must equal the one looked up: a `Map` computes the hash of its string
 * key character by character on every request (a new string each time), ≈1 µs for a 700-character
 * token, while the tail costs a tenth of that and comparing two equal strings is a `memcmp`. Two
 * tokens with the same tail are different entries in turn, never one the other's result; only tokens
 * that verified are stored, so nobody can aim at another's tail without a valid signature, and a
 * collision between two verified tokens costs one more verification, never a wrong answer. Hashing
 * the token (SHA-256) would cost more than the lookup (≈3 µs), and the cached {@link AuthInfo} holds
 * the token anyway. The token length cap bounds the memory per entry.
 *
 * @module
 */
import { LRUCache } from 'lru-cache';
import type { AuthInfo } from './types.js';

/**
 * How many trailing characters of a token find its entry: 72 bits of a signature's base64url, far more
 * than a cache of verified tokens needs to keep them apart. Below 13 characters V8 copies a slice
 * instead of pointing into the token, and hashing the copy costs half as much (≈100 ns per lookup
 * instead of ≈200 ns with 43 characters, measured on Node 24).
 */
const KEY_LENGTH = 12;

/** The part of `token` its entry is found by. */
const keyOf = (token: string): string => (token.length > KEY_LENGTH ? token.slice(-KEY_LENGTH) : token);

interface Entry {
  /** The whole token: a lookup hits only when it is the same. */
  readonly token: string;
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
    const key = keyOf(token);
    const entry = this.#lru.get(key);
    if (entry === undefined || entry.token !== token) return undefined;
    if (now >= entry.validUntil) {
      this.#lru.delete(key);
      return undefined;
    }
    return entry.info;
  }

  set(token: string, info: AuthInfo, validUntil: number, now: number): void {
    const until = Math.min(validUntil, now + this.#maxAge);
    if (until > now) this.#lru.set(keyOf(token), { token, info, validUntil: until });
  }

  clear(): void {
    this.#lru.clear();
  }

  get size(): number {
    return this.#lru.size;
  }
}
