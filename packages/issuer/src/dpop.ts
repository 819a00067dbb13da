/**
 * DPoP (RFC 9449) wiring of the issuer, besides the oidc-provider settings in `oidc/configuration.ts`:
 *
 * - the nonce secret: 32 random bytes generated on the first start and kept in the store's settings,
 *   so every instance on one database hands out and accepts the same nonces (RFC 9449 §8);
 * - proof replay detection that is atomic across instances: oidc-provider's `ReplayDetection` model
 *   reads, then writes, so two instances receiving one proof at the same moment could both accept it;
 *   here a proof's `jti` is counted with the store's atomic failure counter, and only the first count
 *   accepts (RFC 9449 §11.1);
 * - `invalid_request` (not oidc-provider's `invalid_grant`) when an application that requires DPoP
 *   (`dpop_bound_access_tokens`, RFC 9449 §5.2) sends a token request without a proof;
 * - the proof check of the token-exchange grant, which is oidc-provider's own (same checks, nonces and
 *   replay detection as the built-in grants).
 *
 * Proofs, keys and the secret are never logged: errors carry oidc-provider's descriptions only.
 *
 * @module
 */
import { hash } from 'node:crypto';
import { errors, type KoaContextWithOIDC, type Provider } from 'oidc-provider';
// @ts-expect-error oidc-provider ships no types for its DPoP helper (typed below)
import * as dpopHelper from 'oidc-provider/lib/helpers/validate_dpop.js';
import { DEFAULTS } from './config/defaults.js';
import { epoch } from './internal/ids.js';
import { generateSecret } from './internal/secrets.js';
import type { Store } from './storage/store.js';

/**
 * A proof verified by oidc-provider: the RFC 7638 thumbprint of its key, its `jti` and `iat`.
 *
 * @example
 * ```ts
 * const dPoP: ValidatedDpop | undefined = await tokenRequestProof(ctx);
 * if (dPoP) accessToken.setThumbprint('jkt', dPoP.thumbprint);
 * ```
 */
export interface ValidatedDpop {
  readonly thumbprint: string;
  readonly jti: string;
  readonly iat: number;
}

/**
 * oidc-provider's own proof check (`lib/helpers/validate_dpop.js`), which its built-in grants run:
 * the `DPoP` header's type, algorithm, signature, `htm`, `htu`, `iat` and nonce. `undefined` without
 * a header; throws `invalid_dpop_proof` or `use_dpop_nonce`. Then its replay check (through the
 * `ReplayDetection` model, made atomic by {@link installDpop}).
 */
type ValidateDpop = (provider: Provider, ctx: KoaContextWithOIDC) => Promise<ValidatedDpop | undefined>;
type CheckDpopReplay = (
  provider: Provider,
  ctx: KoaContextWithOIDC,
  dPoP: ValidatedDpop,
  clientId: string,
  ErrorClass: new (description: string) => Error,
) => Promise<void>;
const loaded = dpopHelper as { default: unknown; checkDpopReplay: unknown };
// The CommonJS build receives the module namespace itself as `default` (Node's require of ES modules).
const helper = {
  validate: (typeof loaded.default === 'function'
    ? loaded.default
    : (loaded.default as { default: unknown }).default) as ValidateDpop,
  checkReplay: loaded.checkDpopReplay as CheckDpopReplay,
};

/** oidc-provider's description when a client that requires DPoP sent no proof. */
const PROOF_MISSING = 'DPoP proof JWT not provided';

/** Prefix of replay-detection keys in the store's counters (distinct from the failure limiter's). */
const REPLAY_KEY_PREFIX = 'dpop-jti:';

/**
 * The DPoP nonce secret shared by every instance on this store: read it, or generate and store it on
 * the first start (whichever instance writes first wins; the others read its value).
 *
 * @example
 * ```ts
 * const nonceSecret = await loadNonceSecret(store); // 32-byte Buffer
 * new Provider(issuer, { features: { dPoP: { enabled: true, nonceSecret } } });
 * ```
 */
export async function loadNonceSecret(store: Store): Promise<Buffer> {
  const stored = await store.settings.setIfAbsent(DEFAULTS.dpop.nonceSecretSetting, generateSecret());
  const secret = Buffer.from(stored, 'base64url');
  if (secret.byteLength !== 32)
    throw new Error(`the stored setting ${DEFAULTS.dpop.nonceSecretSetting} is not a 32-byte secret`);
  return secret;
}

/**
 * Whether a proof identifier is new, atomically across every instance on `store`: `true` for the first
 * caller, `false` for every later one until `expiresAt` (epoch seconds). A proof is single-use whatever
 * client presents it (oidc-provider alone would accept one proof once per client). Only a digest of
 * the `jti` is stored.
 *
 * @example
 * ```ts
 * await isFirstUse(store, proof.jti, epoch() + 300); // true, then false
 * ```
 */
export async function isFirstUse(store: Store, jti: string, expiresAt: number): Promise<boolean> {
  const now = epoch();
  const digest = hash('sha256', jti, 'base64url');
  const window = await store.failures.increment(
    `${REPLAY_KEY_PREFIX}${digest}`,
    now,
    Math.max(1, expiresAt - now),
  );
  return window.count === 1;
}

/**
 * Install the DPoP behaviour that oidc-provider's configuration cannot express: atomic replay
 * detection on `store`, and `invalid_request` for a missing proof from an application requiring DPoP.
 *
 * @example
 * ```ts
 * const provider = new Provider(issuer, configuration);
 * installDpop(provider, store);
 * ```
 */
export function installDpop(provider: Provider, store: Store): void {
  const replay = provider.ReplayDetection as unknown as {
    unique(iss: string, jti: string, exp: number): Promise<boolean>;
  };
  replay.unique = (_clientId, jti, exp) => isFirstUse(store, jti, exp);
  provider.use(async (ctx, next) => {
    await next();
    // oidc-provider refuses a missing proof with invalid_grant (its description hidden in error_detail).
    const body = ctx.body as { error?: unknown } | undefined;
    if (
      ctx.oidc?.route === 'token' &&
      ctx.status === 400 &&
      body?.error === 'invalid_grant' &&
      ctx.oidc.client?.dpopBoundAccessTokens === true &&
      !ctx.get('DPoP')
    ) {
      ctx.body = { error: 'invalid_request', error_description: PROOF_MISSING };
    }
  });
}

/**
 * The DPoP proof of a token request to a grant that oidc-provider does not implement (token exchange):
 * verified exactly as oidc-provider verifies it for its own grants — signature, `typ`, algorithm,
 * `htm`, `htu`, `iat` or nonce — and checked for replay. Resolves to `undefined` when the request has
 * no `DPoP` header; rejects with `invalid_dpop_proof`, `use_dpop_nonce` (and a `DPoP-Nonce` header) or,
 * for a replayed proof, `invalid_request`.
 *
 * @example
 * ```ts
 * const dPoP = await tokenRequestProof(ctx);
 * if (dPoP !== undefined) accessToken.setThumbprint('jkt', dPoP.thumbprint);
 * ```
 */
export async function tokenRequestProof(ctx: KoaContextWithOIDC): Promise<ValidatedDpop | undefined> {
  const { provider, client } = ctx.oidc;
  const dPoP = await helper.validate(provider, ctx);
  if (dPoP !== undefined)
    await helper.checkReplay(provider, ctx, dPoP, client!.clientId, errors.InvalidRequest);
  return dPoP;
}
