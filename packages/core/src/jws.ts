/**
 * Step 1 of verification: is the string a well-formed compact JWS whose header this verifier accepts?
 * Nothing here trusts the contents; it only checks shape, and reads `alg`, `kid` and `typ` for the
 * key lookup and the later `typ` check.
 *
 * - exactly three non-empty base64url segments (JWE's five, JSON serialization, padding, `+`, `/` and
 *   whitespace are refused);
 * - header and payload are UTF-8 JSON objects with no duplicate member names;
 * - `alg` is in the allow-list; `enc` and `zip` (JWE only, RFC 7516 §4.1.2–4.1.3: nothing is ever
 *   decrypted or inflated), `crit` (no extension is understood, RFC 7515 §4.1.11) and `b64` (RFC 7797:
 *   JWTs must be encoded) are refused; `kid` and `typ`, when present, are strings.
 *
 * Key-carrying header parameters (`jwk`, `jku`, `x5u`, `x5c`) are ignored: keys only ever come from
 * the configured JWKS (RFC 8725 §3.10).
 *
 * @module
 */
import { type ErrorContext, InvalidTokenError } from './errors.js';
import { decodeBase64url } from './internal/base64url.js';
import { parseJsonObject } from './internal/json.js';
import { asciiBytes } from './internal/platform.js';
import type { Algorithm } from './types.js';

/** The header fields verification uses. */
export interface JwsHeader {
  readonly alg: Algorithm;
  readonly kid: string | undefined;
  readonly typ: string | undefined;
}

/** A compact JWS split and decoded, not yet verified. */
export interface ParsedJws {
  readonly header: JwsHeader;
  readonly payload: Record<string, unknown>;
  /** ASCII bytes of `header.payload`, the JWS signing input. */
  readonly signingInput: Uint8Array;
  readonly signature: Uint8Array;
}

const HEADER_CACHE_MAX = 256;

/**
 * Parses compact JWS strings for one verifier. Decoded headers are memoized by their encoded form
 * (tokens from one issuer share a handful of headers), bounded to a few hundred entries.
 */
export class JwsParser {
  readonly #algorithms: ReadonlySet<string>;
  readonly #context: ErrorContext;
  readonly #headers = new Map<string, JwsHeader>();

  constructor(algorithms: ReadonlySet<string>, context: ErrorContext) {
    this.#algorithms = algorithms;
    this.#context = context;
  }

  /** Split and decode `token`; throws {@link InvalidTokenError} (`malformed` or `algorithm`). */
  parse(token: string): ParsedJws {
    const first = token.indexOf('.');
    const second = first === -1 ? -1 : token.indexOf('.', first + 1);
    if (second === -1 || token.indexOf('.', second + 1) !== -1) throw this.#malformed();

    const encodedHeader = token.slice(0, first);
    const header = this.#headers.get(encodedHeader) ?? this.#parseHeader(encodedHeader);

    const payloadBytes = decodeBase64url(token.slice(first + 1, second));
    const signature = decodeBase64url(token.slice(second + 1));
    if (payloadBytes === undefined || signature === undefined) throw this.#malformed();
    const payload = parseJsonObject(payloadBytes);
    if (payload === undefined) throw this.#malformed();

    return { header, payload, signingInput: asciiBytes(token.slice(0, second)), signature };
  }

  #malformed(): InvalidTokenError {
    return new InvalidTokenError('malformed', this.#context);
  }

  #parseHeader(encoded: string): JwsHeader {
    const bytes = decodeBase64url(encoded);
    const raw = bytes === undefined ? undefined : parseJsonObject(bytes);
    if (raw === undefined) throw this.#malformed();
    const { alg, kid, typ } = raw;
    if (typeof alg !== 'string' || alg.length === 0) throw this.#malformed();
    if ('enc' in raw || 'zip' in raw || 'crit' in raw || 'b64' in raw) throw this.#malformed();
    if (kid !== undefined && typeof kid !== 'string') throw this.#malformed();
    if (typ !== undefined && typeof typ !== 'string') throw this.#malformed();
    if (!this.#algorithms.has(alg)) throw new InvalidTokenError('algorithm', this.#context);

    const header: JwsHeader = Object.freeze({ alg: alg as Algorithm, kid, typ });
    if (this.#headers.size >= HEADER_CACHE_MAX) this.#headers.clear();
    this.#headers.set(encoded, header);
    return header;
  }
}
