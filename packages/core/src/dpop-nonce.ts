/**
 * Stateless DPoP server nonces (RFC 9449 §9). A nonce is the current time step (of `lifetime` seconds)
 * followed by a truncated HMAC-SHA-256 of that step under the configured secret:
 *
 *     nonce = base64url( step (6 bytes, big-endian) ‖ HMAC(secret, "gatehouse-dpop-nonce" ‖ step)[0..18) )
 *
 * Nothing is stored: any instance holding the same secret recognises the nonces of any other. A nonce
 * is accepted during its own step and the next, so a client needs a new one at most once per
 * `lifetime` and never sees one expire the instant it was issued. The nonces of the current and the
 * previous step are computed once per step, so checking one is a string comparison.
 *
 * @module
 */
import { encodeBase64url, hmacSha256 } from './internal/platform.js';

const LABEL = new TextEncoder().encode('gatehouse-dpop-nonce');
/** Bytes of HMAC kept: 144 bits, far beyond guessing within a step. */
const MAC_BYTES = 18;

/** Issues and checks the nonces of one secret. */
export class NonceSource {
  readonly #secret: Uint8Array;
  readonly #lifetime: number;
  #step = Number.NaN;
  #current = '';
  #previous = '';

  /**
   * @param secret - at least 32 bytes, shared by every instance.
   * @param lifetime - seconds per step.
   */
  constructor(secret: Uint8Array, lifetime: number) {
    this.#secret = secret;
    this.#lifetime = lifetime;
  }

  #nonceOf(step: number): string {
    // step (6 bytes, big-endian) ‖ HMAC(LABEL ‖ step) truncated; steps stay below 2^48.
    const out = new Uint8Array(6 + MAC_BYTES);
    for (let i = 5, rest = step; i >= 0; i--, rest = Math.floor(rest / 256)) out[i] = rest % 256;
    const input = new Uint8Array(LABEL.length + 6);
    input.set(LABEL);
    input.set(out.subarray(0, 6), LABEL.length);
    out.set(hmacSha256(this.#secret, input).subarray(0, MAC_BYTES), 6);
    return encodeBase64url(out);
  }

  #roll(now: number): void {
    const step = Math.floor(now / this.#lifetime);
    if (step === this.#step) return;
    this.#current = this.#nonceOf(step);
    this.#previous = this.#nonceOf(step - 1);
    this.#step = step;
  }

  /** The nonce to hand out at `now` (seconds since the epoch). */
  current(now: number): string {
    this.#roll(now);
    return this.#current;
  }

  /** Whether `nonce` was issued (by any instance with this secret) in the current or previous step. */
  accepts(nonce: unknown, now: number): boolean {
    if (typeof nonce !== 'string') return false;
    this.#roll(now);
    return nonce === this.#current || nonce === this.#previous;
  }
}
