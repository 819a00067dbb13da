/**
 * The `dpop` and `mtls` verifier options (sender-constrained tokens: RFC 9449, RFC 8705), merged with
 * {@link DEFAULTS} and validated when the verifier is created. A bad value throws a `TypeError` naming
 * the option.
 *
 * @module
 */

import { DEFAULTS, type DpopMode, type MtlsMode, SUPPORTED_ALGORITHMS } from './defaults.js';
import { fail } from './internal/fail.js';
import { rejectUnknownKeys } from './internal/known-keys.js';
import { MemoryReplayStore, type ReplayStore } from './replay-store.js';
import type { Algorithm } from './types.js';

/**
 * Stateless server nonces (RFC 9449 §9): each nonce is an HMAC of a time step under `secret`, so every
 * API instance configured with the same secret accepts the others' nonces.
 *
 * @example
 * ```ts
 * const nonce: DpopNonceOptions = { secret: process.env.DPOP_NONCE_SECRET!, lifetime: 120 };
 * ```
 */
export interface DpopNonceOptions {
  /** At least 32 bytes (or 32 characters) of secret, shared by every instance of the API. */
  secret: string | Uint8Array;
  /** Seconds one nonce step lasts; a nonce is accepted in its own step and the next. Default 300. */
  lifetime?: number;
}

/**
 * DPoP (RFC 9449) settings of a verifier. Defaults in {@link DEFAULTS}.dpop.
 *
 * @example
 * ```ts
 * import { createVerifier } from '@gatehouse/core';
 *
 * const verifier = createVerifier({
 *   issuer: 'https://id.example.com/oidc',
 *   audience: 'https://api.example.com/orders',
 *   dpop: { mode: 'required', nonce: { secret: process.env.DPOP_NONCE_SECRET! } },
 * });
 * ```
 */
export interface DpopOptions {
  /** `allowed` (default), `required` or `disabled`. */
  mode?: DpopMode;
  /** Algorithms accepted for proofs. Default ES256, EdDSA, RS256, PS256. */
  algorithms?: readonly Algorithm[];
  /** Seconds after `iat` a proof is accepted. Default 300. */
  iatWindow?: number;
  /** Seconds `iat` may lie in the future. Default 30. */
  iatLeeway?: number;
  /** Longest `DPoP` header, in characters. Default 8192. */
  maxProofLength?: number;
  /** Server nonces, or `false` (default) for none. */
  nonce?: DpopNonceOptions | false;
  /** Where proof identifiers are remembered. Default: a {@link MemoryReplayStore} per verifier. */
  replayStore?: ReplayStore;
}

/**
 * Certificate-bound token (RFC 8705) settings of a verifier. Defaults in {@link DEFAULTS}.mtls.
 *
 * @example
 * ```ts
 * // Behind a TLS-terminating proxy that forwards the client certificate (RFC 9440) and strips the
 * // header from clients:
 * const mtls: MtlsOptions = { certificateHeader: 'client-cert' };
 * ```
 */
export interface MtlsOptions {
  /** `allowed` (default) or `required`. */
  mode?: MtlsMode;
  /** Read the certificate from this request header (RFC 9440 `Client-Cert`) instead of the TLS connection. */
  certificateHeader?: string;
}

/** DPoP options after defaults and validation. */
export interface ResolvedDpopOptions {
  readonly mode: DpopMode;
  readonly algorithms: ReadonlySet<Algorithm>;
  /** The algorithms, space-separated, for the challenge's `algs`. */
  readonly algs: string;
  readonly iatWindow: number;
  readonly iatLeeway: number;
  readonly maxProofLength: number;
  readonly nonce: { readonly secret: Uint8Array; readonly lifetime: number } | undefined;
  readonly replayStore: ReplayStore;
}

/** mTLS options after defaults and validation. */
export interface ResolvedMtlsOptions {
  readonly mode: MtlsMode;
  /** Lower-case header name, or `undefined` for the TLS connection. */
  readonly certificateHeader: string | undefined;
}

function object(value: unknown, option: string): Record<string, unknown> {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return fail(option, 'must be an object');
  return value as Record<string, unknown>;
}

function seconds(value: unknown, fallback: number, option: string, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max)
    return fail(option, `must be a number of seconds between ${min} and ${max}`);
  return value;
}

const DPOP_KEYS = [
  'mode',
  'algorithms',
  'iatWindow',
  'iatLeeway',
  'maxProofLength',
  'nonce',
  'replayStore',
] as const;

function nonceOptions(value: unknown): ResolvedDpopOptions['nonce'] {
  if (value === undefined || value === false) return undefined;
  const n = object(value, 'dpop.nonce');
  rejectUnknownKeys(n, ['secret', 'lifetime'], 'dpop.nonce.');
  const secret =
    typeof n.secret === 'string' ? new TextEncoder().encode(n.secret) : (n.secret as Uint8Array | undefined);
  if (!(secret instanceof Uint8Array) || secret.length < 32)
    fail('dpop.nonce.secret', 'must be a string or Uint8Array of at least 32 bytes');
  const lifetime = seconds(n.lifetime, DEFAULTS.dpop.nonceLifetime, 'dpop.nonce.lifetime', 10, 3600);
  return Object.freeze({ secret: Uint8Array.from(secret as Uint8Array), lifetime });
}

/**
 * Merge the `dpop` option with {@link DEFAULTS}.dpop and validate it.
 *
 * @example
 * ```ts
 * resolveDpopOptions({ mode: 'required', iatWindow: 60 }).algs; // 'ES256 EdDSA RS256 PS256'
 * ```
 */
export function resolveDpopOptions(value: unknown): ResolvedDpopOptions {
  const d = object(value, 'dpop');
  rejectUnknownKeys(d, DPOP_KEYS, 'dpop.');
  const mode = d.mode ?? DEFAULTS.dpop.mode;
  if (mode !== 'allowed' && mode !== 'required' && mode !== 'disabled')
    fail('dpop.mode', 'must be "allowed", "required" or "disabled"');
  const algorithms = d.algorithms ?? DEFAULTS.dpop.algorithms;
  if (!Array.isArray(algorithms) || algorithms.length === 0)
    fail('dpop.algorithms', 'must be a non-empty array of algorithm names');
  for (const alg of algorithms as unknown[]) {
    if (!(SUPPORTED_ALGORITHMS as readonly unknown[]).includes(alg))
      fail('dpop.algorithms', `contains "${String(alg)}", which is not a supported asymmetric algorithm`);
  }
  const maxProofLength = d.maxProofLength ?? DEFAULTS.dpop.maxProofLength;
  if (typeof maxProofLength !== 'number' || !Number.isInteger(maxProofLength) || maxProofLength < 256)
    fail('dpop.maxProofLength', 'must be an integer >= 256');
  const replayStore = d.replayStore ?? new MemoryReplayStore({ max: DEFAULTS.dpop.replayStoreMax });
  if (replayStore === null || typeof (replayStore as ReplayStore).record !== 'function')
    fail('dpop.replayStore', 'must have a record(id, expiresAt) method');
  const unique = [...new Set(algorithms as Algorithm[])];
  return Object.freeze({
    mode: mode as DpopMode,
    algorithms: new Set(unique),
    algs: unique.join(' '),
    iatWindow: seconds(d.iatWindow, DEFAULTS.dpop.iatWindow, 'dpop.iatWindow', 1, 3600),
    iatLeeway: seconds(d.iatLeeway, DEFAULTS.dpop.iatLeeway, 'dpop.iatLeeway', 0, 300),
    maxProofLength: maxProofLength as number,
    nonce: nonceOptions(d.nonce),
    replayStore: replayStore as ReplayStore,
  });
}

/** An HTTP field name (RFC 9110 §5.1 token). */
const FIELD_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Merge the `mtls` option with {@link DEFAULTS}.mtls and validate it.
 *
 * @example
 * ```ts
 * resolveMtlsOptions({ certificateHeader: 'Client-Cert' }).certificateHeader; // 'client-cert'
 * ```
 */
export function resolveMtlsOptions(value: unknown): ResolvedMtlsOptions {
  const m = object(value, 'mtls');
  rejectUnknownKeys(m, ['mode', 'certificateHeader'], 'mtls.');
  const mode = m.mode ?? DEFAULTS.mtls.mode;
  if (mode !== 'allowed' && mode !== 'required') fail('mtls.mode', 'must be "allowed" or "required"');
  const header = m.certificateHeader ?? DEFAULTS.mtls.certificateHeader;
  if (header !== undefined && (typeof header !== 'string' || !FIELD_NAME.test(header)))
    fail('mtls.certificateHeader', 'must be an HTTP header name');
  return Object.freeze({
    mode: mode as MtlsMode,
    certificateHeader: (header as string | undefined)?.toLowerCase(),
  });
}
