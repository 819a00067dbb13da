/**
 * The binding checks that follow a verified token (RFC 9449 §7, RFC 8705 §3), per request:
 *
 * - certificate-bound (`cnf["x5t#S256"]`): the client certificate of the request — from the TLS
 *   connection, or from the configured RFC 9440 header — must have that SHA-256 thumbprint;
 *   with `mtls.mode: 'required'`, an unbound token is refused;
 * - DPoP-bound (`cnf.jkt`): only under the `DPoP` scheme (never as Bearer: no downgrade), with a proof
 *   that passes every check of dpop-proof.ts, made with the key of that thumbprint, and seen for the
 *   first time by the replay store; an unbound token under `DPoP`, or any Bearer token with
 *   `dpop.mode: 'required'`, is refused.
 *
 * These run on every request, also when the token itself comes from the result cache.
 *
 * @module
 */
import type { ResolvedDpopOptions, ResolvedMtlsOptions } from './dpop-options.js';
import { type CheckedProof, DpopProofChecker } from './dpop-proof.js';
import {
  type ErrorContext,
  InvalidDpopProofError,
  InvalidTokenError,
  type InvalidTokenReason,
  ReplayStoreUnavailableError,
} from './errors.js';
import { decodeBase64 } from './internal/base64url.js';
import { sha256Base64url } from './internal/platform.js';
import { certificateThumbprint } from './thumbprint.js';
import type { AuthInfo, RequestLike } from './types.js';

/** How a request presented its token. */
export type Scheme = 'bearer' | 'dpop';

/** The error contexts of one verifier: the `Bearer` scheme's and the `DPoP` scheme's. */
export interface SchemeContexts {
  readonly bearer: ErrorContext;
  readonly dpop: ErrorContext;
}

/** An RFC 9440 `Client-Cert` value: a structured-field byte sequence, `:<base64 DER>:`. */
function certificateFromHeader(value: unknown): Uint8Array | undefined {
  if (typeof value !== 'string') return undefined;
  const v = value.trim();
  if (v.length < 3 || v[0] !== ':' || v[v.length - 1] !== ':') return undefined;
  return decodeBase64(v.slice(1, -1));
}

/** Binding checks of one verifier. */
export class SenderConstraint {
  readonly #dpop: ResolvedDpopOptions;
  readonly #mtls: ResolvedMtlsOptions;
  readonly #contexts: SchemeContexts;
  readonly #proofs: DpopProofChecker | undefined;
  /** `ath` of each verified token, computed once: the result cache hands out the same `AuthInfo`. */
  readonly #ath = new WeakMap<AuthInfo, string>();

  constructor(dpop: ResolvedDpopOptions, mtls: ResolvedMtlsOptions, contexts: SchemeContexts) {
    this.#dpop = dpop;
    this.#mtls = mtls;
    this.#contexts = contexts;
    this.#proofs = dpop.mode === 'disabled' ? undefined : new DpopProofChecker(dpop, contexts.dpop);
  }

  /** Whether the `DPoP` scheme is understood at all. */
  get acceptsDpop(): boolean {
    return this.#proofs !== undefined;
  }

  /** The DPoP nonce to hand out now, when nonces are on. */
  nonce(now: number): string | undefined {
    return this.#proofs?.nonce(now);
  }

  /** Refusals that need no token verification: a Bearer token where DPoP is required. */
  precheck(scheme: Scheme): void {
    if (scheme === 'bearer' && this.#dpop.mode === 'required')
      throw new InvalidTokenError('binding_required', this.#contexts.dpop);
  }

  #invalid(reason: InvalidTokenReason, scheme: Scheme): InvalidTokenError {
    return new InvalidTokenError(reason, this.#contexts[scheme]);
  }

  #presentedCertificate(req: RequestLike | undefined): string | undefined {
    if (req === undefined) return undefined;
    const header = this.#mtls.certificateHeader;
    let der: Uint8Array | undefined;
    if (header !== undefined) {
      const value = req.headers[header];
      der = certificateFromHeader(Array.isArray(value) ? (value.length === 1 ? value[0] : undefined) : value);
    } else {
      der = req.clientCertificate;
    }
    return der === undefined || der.length === 0 ? undefined : certificateThumbprint(der);
  }

  /**
   * Check `info`'s binding for a request. `request` and `proof` are absent for a bare `verify(token)`,
   * which therefore accepts unbound tokens only. Returns a promise only when the replay store is async
   * or the platform verifies proofs asynchronously (WebCrypto).
   */
  check(
    info: AuthInfo,
    scheme: Scheme,
    proof: string | undefined,
    request: RequestLike | undefined,
    now: number,
  ): undefined | Promise<void> {
    const cnf = info.confirmation;
    const x5t = cnf?.['x5t#S256'];
    if (x5t === undefined) {
      if (this.#mtls.mode === 'required') throw this.#invalid('binding_required', scheme);
    } else if (this.#presentedCertificate(request) !== x5t) {
      throw this.#invalid('certificate', scheme);
    }

    const jkt = cnf?.jkt;
    if (scheme === 'bearer') {
      if (jkt !== undefined) throw this.#invalid('bound_token', scheme);
      if (this.#dpop.mode === 'required') throw this.#invalid('binding_required', 'dpop');
      return undefined;
    }
    if (jkt === undefined) throw this.#invalid('not_bound', scheme);
    if (this.#proofs === undefined || proof === undefined || request === undefined)
      throw new InvalidDpopProofError('dpop_missing', this.#contexts.dpop);
    const checked = this.#proofs.check(
      proof,
      request.method ?? '',
      request.url ?? '',
      this.#athOf(info),
      now,
    );
    if (checked instanceof Promise) return checked.then((ready) => this.#bind(ready, jkt, scheme));
    return this.#bind(checked, jkt, scheme);
  }

  /** The proof key must be the one the token is bound to; then the proof must be new. */
  #bind(checked: CheckedProof, jkt: string, scheme: Scheme): undefined | Promise<void> {
    if (checked.jkt !== jkt) throw this.#invalid('dpop_binding', scheme);
    return this.#record(checked);
  }

  #athOf(info: AuthInfo): string {
    let ath = this.#ath.get(info);
    if (ath === undefined) {
      ath = athOf(info.token);
      this.#ath.set(info, ath);
    }
    return ath;
  }

  #record(proof: CheckedProof): undefined | Promise<void> {
    const context = this.#contexts.dpop;
    const unavailable = (cause: unknown) => new ReplayStoreUnavailableError(context, { cause });
    let fresh: boolean | Promise<boolean>;
    try {
      fresh = this.#dpop.replayStore.record(proof.replayId, proof.expiresAt);
    } catch (error) {
      throw unavailable(error);
    }
    if (fresh === true) return undefined;
    if (fresh === false) throw new InvalidDpopProofError('dpop_replay', context);
    if (fresh === null || typeof (fresh as Partial<Promise<boolean>>)?.then !== 'function')
      throw unavailable(new TypeError('replayStore.record() must return a boolean or a promise of one'));
    return Promise.resolve(fresh).then(
      (ok) => {
        if (ok === true) return;
        if (ok === false) throw new InvalidDpopProofError('dpop_replay', context);
        throw unavailable(new TypeError('replayStore.record() must resolve to a boolean'));
      },
      (error: unknown) => {
        throw unavailable(error);
      },
    );
  }
}

/** RFC 9449 §4.2 `ath`: base64url SHA-256 of the ASCII access token. */
export function athOf(token: string): string {
  return sha256Base64url(token);
}
