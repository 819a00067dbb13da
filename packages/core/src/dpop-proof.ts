/**
 * Checking a DPoP proof (RFC 9449 §4.3) against the request it came with. In order:
 *
 * 1. exactly one `DPoP` header, holding one proof, within the size cap ({@link readProof});
 * 2. a well-formed compact JWS (three canonical base64url segments, UTF-8 JSON objects, no duplicate
 *    members, no `crit`, `b64`, `enc` or `zip`);
 * 4. header `typ` is exactly `dpop+jwt`; 5. `alg` is in the proof allow-list (asymmetric only);
 * 7. header `jwk` is a public RSA (≥ 2048 bits), EC (P-256/384/521) or Ed25519 key matching `alg`, with
 *    no private or symmetric members; 6. the signature verifies with that key;
 * 3. the claims are there with the right types: `jti` (1–256 characters), `htm`, `htu`, `iat`, `ath`;
 * 8. `htm` is the request method; 9. `htu` is the request URI, ignoring query and fragment, with
 *    scheme and host compared case-insensitively, default ports and percent-encoding normalised;
 * 10. with server nonces, `nonce` is a current one (else {@link UseDpopNonceError} with a fresh one);
 * 11. `iat` is within `iatWindow` in the past and `iatLeeway` in the future;
 * 12. `ath` is the hash of the access token.
 *
 * What remains is the caller's: the proof key against the token's `cnf.jkt`, then the replay store.
 * Decoded headers (the key import and its thumbprint) are memoized by their encoded form, since a
 * client sends the same header on every proof.
 *
 * @module
 */
import { NonceSource } from './dpop-nonce.js';
import type { ResolvedDpopOptions } from './dpop-options.js';
import {
  type DpopProofReason,
  type ErrorContext,
  InvalidDpopProofError,
  UseDpopNonceError,
} from './errors.js';
import { decodeBase64url } from './internal/base64url.js';
import { countHeaderLines } from './internal/headers.js';
import { parseJsonObject } from './internal/json.js';
import { andThen, type Maybe } from './internal/maybe.js';
import { asciiBytes, importKey, type VerifyKey, verifySignature } from './internal/platform.js';
import { type KeyEntry, keyMatchesAlgorithm } from './jwk.js';
import { jwkThumbprint } from './thumbprint.js';
import type { Algorithm, RequestLike } from './types.js';

/** A proof that passed every check of this module. */
export interface CheckedProof {
  /** RFC 7638 thumbprint of the proof key, to compare with the token's `cnf.jkt`. */
  readonly jkt: string;
  /**
   * Replay-store identifier: the key's thumbprint (43 characters) followed by `jti` (1–256), so a
   * `jti` only ever collides with one of the same client key. Not hashed: a SHA-256 per request cost
   * more than everything else the proof needs besides its signature.
   */
  readonly replayId: string;
  /** Milliseconds since the epoch after which the proof is stale anyway. */
  readonly expiresAt: number;
}

interface ProofHeader {
  readonly alg: Algorithm;
  readonly key: VerifyKey;
  readonly jkt: string;
}

/** Members that only a private or symmetric JWK has (RFC 7518 §6.2.2, §6.3.2, §6.4). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
const PUBLIC_MEMBERS: Readonly<Record<string, readonly string[]>> = {
  EC: ['kty', 'crv', 'x', 'y'],
  OKP: ['kty', 'crv', 'x'],
  RSA: ['kty', 'n', 'e'],
};
const MAX_JTI = 256;
const HEADER_MEMO_MAX = 1_000;

/** Header parameters refused in a proof, as in an access token: nothing is decrypted, inflated or extended. */
const REFUSED_HEADER = ['crit', 'b64', 'enc', 'zip'];

/**
 * Read the request's one DPoP proof. Throws {@link InvalidDpopProofError} when there is none, several
 * (two header lines, an array, or a comma-joined value), or one over the size cap.
 */
export function readProof(req: RequestLike, maxLength: number, context: ErrorContext): string {
  if (countHeaderLines(req.rawHeaders, 'dpop') > 1) throw new InvalidDpopProofError('dpop_multiple', context);
  const value: unknown = req.headers.dpop;
  if (Array.isArray(value)) {
    if (value.length > 1) throw new InvalidDpopProofError('dpop_multiple', context);
    return readProof({ headers: { dpop: value[0] } }, maxLength, context);
  }
  if (typeof value !== 'string' || value.trim() === '')
    throw new InvalidDpopProofError('dpop_missing', context);
  if (value.length > maxLength) throw new InvalidDpopProofError('dpop_too_large', context);
  if (value.includes(',')) throw new InvalidDpopProofError('dpop_multiple', context);
  return value.trim();
}

/** The request URI compared with `htu`: without query and fragment (RFC 9449 §4.3 (9)). */
const withoutQuery = (uri: string): string => {
  const end = uri.search(/[?#]/);
  return end === -1 ? uri : uri.slice(0, end);
};

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** RFC 3986 §6.2.2 syntax-based normalisation of an absolute URI, without query and fragment. */
function normalizeUri(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  // WHATWG URL lower-cases scheme and host and drops default ports; normalise percent-encoding here.
  const path = url.pathname.replace(/%([0-9A-Fa-f]{2})/g, (_m, hex: string) => {
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : `%${hex.toUpperCase()}`;
  });
  return `${url.protocol}//${url.host}${path}`;
}

/** Whether the proof's `htu` names the request URI. */
export function htuMatches(htu: string, requestUri: string): boolean {
  const target = withoutQuery(requestUri);
  if (withoutQuery(htu) === target) return true;
  const a = normalizeUri(htu);
  return a !== undefined && a === normalizeUri(target);
}

/** Checks proofs for one verifier: its algorithms, windows, nonces and error context. */
export class DpopProofChecker {
  readonly #options: ResolvedDpopOptions;
  readonly #context: ErrorContext;
  readonly #nonces: NonceSource | undefined;
  /** Decoded headers by their encoded form; cleared when full (a few clients' keys are the normal case). */
  readonly #headers = new Map<string, ProofHeader>();

  constructor(options: ResolvedDpopOptions, context: ErrorContext) {
    this.#options = options;
    this.#context = context;
    this.#nonces =
      options.nonce === undefined ? undefined : new NonceSource(options.nonce.secret, options.nonce.lifetime);
  }

  /** The nonce to hand out now, or `undefined` when nonces are off. */
  nonce(now: number): string | undefined {
    return this.#nonces?.current(now);
  }

  #fail(reason: DpopProofReason): InvalidDpopProofError {
    return new InvalidDpopProofError(reason, this.#context);
  }

  /**
   * Run checks 2–12 on `proof` for a request with `method` and absolute `url`, presented with the
   * access token whose hash is `ath` (`undefined` for a proof sent without one, e.g. to a token
   * endpoint, where `ath` is not checked). `now` in seconds.
   */
  check(
    proof: string,
    method: string,
    url: string,
    ath: string | undefined,
    now: number,
  ): Maybe<CheckedProof> {
    const first = proof.indexOf('.');
    const second = first === -1 ? -1 : proof.indexOf('.', first + 1);
    if (second === -1 || proof.indexOf('.', second + 1) !== -1) throw this.#fail('dpop_malformed');
    const encodedHeader = proof.slice(0, first);
    const header = this.#headers.get(encodedHeader) ?? this.#parseHeader(encodedHeader);
    return andThen(header, (ready) => {
      const payloadBytes = decodeBase64url(proof.slice(first + 1, second));
      const signature = decodeBase64url(proof.slice(second + 1));
      const claims = payloadBytes === undefined ? undefined : parseJsonObject(payloadBytes);
      if (claims === undefined || signature === undefined) throw this.#fail('dpop_malformed');
      const verified = verifySignature(ready.alg, ready.key, asciiBytes(proof.slice(0, second)), signature);
      return andThen(verified, (ok) => {
        if (!ok) throw this.#fail('dpop_signature');
        return this.#checkClaims(ready, claims, method, url, ath, now);
      });
    });
  }

  /** Checks 3 and 8–12, on a proof whose signature verified. */
  #checkClaims(
    header: ProofHeader,
    claims: Record<string, unknown>,
    method: string,
    url: string,
    ath: string | undefined,
    now: number,
  ): CheckedProof {
    const { jti, htm, htu, iat } = claims;
    if (typeof jti !== 'string' || jti.length === 0 || jti.length > MAX_JTI) throw this.#fail('dpop_jti');
    if (typeof htm !== 'string' || htm !== method) throw this.#fail('dpop_htm');
    if (typeof htu !== 'string' || !htuMatches(htu, url)) throw this.#fail('dpop_htu');
    if (this.#nonces !== undefined && !this.#nonces.accepts(claims.nonce, now))
      throw new UseDpopNonceError(this.#nonces.current(now), this.#context);
    if (typeof iat !== 'number' || !Number.isFinite(iat)) throw this.#fail('dpop_iat');
    if (now - iat > this.#options.iatWindow || iat - now > this.#options.iatLeeway)
      throw this.#fail('dpop_iat');
    if (ath !== undefined && claims.ath !== ath) throw this.#fail('dpop_ath');

    return {
      jkt: header.jkt,
      replayId: `${header.jkt}${jti}`,
      expiresAt: Math.ceil((iat + this.#options.iatWindow) * 1000),
    };
  }

  #parseHeader(encoded: string): Maybe<ProofHeader> {
    const bytes = decodeBase64url(encoded);
    const raw = bytes === undefined ? undefined : parseJsonObject(bytes);
    if (raw === undefined) throw this.#fail('dpop_malformed');
    for (const name of REFUSED_HEADER) if (name in raw) throw this.#fail('dpop_malformed');
    if (raw.typ !== 'dpop+jwt') throw this.#fail('dpop_typ');
    const alg = raw.alg;
    if (typeof alg !== 'string' || !this.#options.algorithms.has(alg as Algorithm))
      throw this.#fail('dpop_algorithm');
    return andThen(importProofKey(raw.jwk, alg as Algorithm), (imported) => {
      if (imported === undefined) throw this.#fail('dpop_key');
      const header: ProofHeader = Object.freeze({ alg: alg as Algorithm, ...imported });
      if (this.#headers.size >= HEADER_MEMO_MAX) this.#headers.clear();
      this.#headers.set(encoded, header);
      return header;
    });
  }
}

/**
 * Import a proof's header `jwk` for `alg`: a public key of the right type and size, or `undefined`.
 * Synchronous on Node (`createPublicKey`), since it runs for every new client key; a promise on WebCrypto.
 */
function importProofKey(jwk: unknown, alg: Algorithm): Maybe<{ key: VerifyKey; jkt: string } | undefined> {
  if (jwk === null || typeof jwk !== 'object' || Array.isArray(jwk)) return undefined;
  const j = jwk as Record<string, unknown>;
  for (const name of PRIVATE_MEMBERS) if (name in j) return undefined;
  const members = typeof j.kty === 'string' ? PUBLIC_MEMBERS[j.kty] : undefined;
  if (members === undefined) return undefined;
  if (j.alg !== undefined && j.alg !== alg) return undefined;
  const entry = { kid: undefined, alg: undefined, kty: j.kty, crv: j.crv } as unknown as KeyEntry;
  if (!keyMatchesAlgorithm(entry, alg)) return undefined;
  const publicJwk: Record<string, string> = {};
  for (const name of members) {
    const value = j[name];
    if (typeof value !== 'string') return undefined;
    publicJwk[name] = value;
  }
  const jkt = jwkThumbprint(publicJwk);
  if (jkt === undefined) return undefined;
  // An invalid key, or an RSA key under 2048 bits, comes back `undefined`.
  return andThen(importKey(publicJwk, alg), (key) => (key === undefined ? undefined : { key, jkt }));
}
