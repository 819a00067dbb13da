/**
 * One generation of the protocol side: an oidc-provider instance for a set of signing keys, the
 * `@gatehouse/core` verifiers that check this issuer's own tokens (Management API callers, JWT actor
 * tokens), the extra grants, and oidc-provider's validation of application metadata. The issuer builds
 * a new generation whenever its signing keys change.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createVerifier, type Verifier } from '@gatehouse/core';
import type Provider from 'oidc-provider';
import { ValidationError } from '../errors.js';
import type { FailureLimiter } from '../grants/failure-limiter.js';
import { registerGrants } from '../grants/index.js';
import type { AuditTrail } from '../internal/audit.js';
import type { KeySet } from '../keys.js';
import type { ApplicationRecord } from '../storage/store.js';
import { traceProvider } from '../tracing/provider.js';
import { toClientMetadata } from './client-metadata.js';
import type { ProviderDeps } from './configuration.js';
import { createProvider } from './provider.js';

/**
 * What {@link buildOidc} needs besides the provider's own settings.
 *
 * @example
 * ```ts
 * const deps: OidcDeps = { ...providerDeps, audit, limiter, onGrant, currentKeys: () => keys, refreshKeys };
 * ```
 */
export interface OidcDeps extends ProviderDeps {
  readonly audit: AuditTrail;
  readonly limiter: FailureLimiter;
  /** Listener of oidc-provider's `grant.success` (a token was issued). */
  readonly onGrant: (ctx: { oidc?: { client?: { clientId?: string } } }) => void;
  /** Installs the token endpoint's protections (rate limits) before the provider's middleware is fixed. */
  readonly protect: (provider: Provider) => void;
  /** The keys in force at the time of a verification (they may be newer than `keys`). */
  readonly currentKeys: () => KeySet;
  /** Re-read the keys from the store; resolves to whether they changed. */
  readonly refreshKeys: () => Promise<boolean>;
}

/**
 * One generation: the provider and what is built around it.
 *
 * @example
 * ```ts
 * const oidc: OidcInstance = buildOidc(deps);
 * createServer(oidc.callback).listen(3001);
 * ```
 */
export interface OidcInstance {
  readonly provider: Provider;
  /** oidc-provider's Node request handler. */
  readonly callback: (req: IncomingMessage, res: ServerResponse) => void;
  /** Verifies Management API access tokens (audience `managementAudience`). */
  readonly verifier: Verifier;
  /** Throws a `ValidationError` when oidc-provider refuses the application's client metadata. */
  validateApplication(app: ApplicationRecord): Promise<void>;
}

/**
 * Build a generation for `deps.keys`.
 *
 * @example
 * ```ts
 * let oidc = buildOidc({ ...deps, keys: initialKeys });
 * // after a rotation
 * oidc = buildOidc({ ...deps, keys: rotatedKeys });
 * ```
 */
export function buildOidc(deps: OidcDeps): OidcInstance {
  const { config, store, currentKeys, refreshKeys } = deps;
  const provider = createProvider(deps);
  deps.protect(provider);
  (provider.on as (event: string, listener: OidcDeps['onGrant']) => unknown).call(
    provider,
    'grant.success', // a token issued: for the administrator, its secret has been used
    deps.onGrant,
  );
  // The issuer's own keys, served in-process: no network round-trip to itself, hence http is safe here.
  const ownKeys = {
    issuer: config.issuer,
    strict: true,
    jwksUri: `${config.issuer}/jwks`,
    // Asked on an unknown kid: on a shared store, another instance may have rotated a moment ago.
    fetch: async () => {
      if (store.multiNode) await refreshKeys().catch(() => false);
      return new Response(JSON.stringify(currentKeys().jwks), {
        headers: { 'content-type': 'application/json' },
      });
    },
    allowInsecureHttp: true,
  } as const;
  const verifier = createVerifier({
    ...ownKeys,
    audience: config.managementAudience,
    realm: 'gatehouse-management',
    // A token for another API sent to the Management API: the issuer's log says so (never the token).
    onWarning: (warning) =>
      deps.log.warn({ event: 'management.token_warning', code: warning.code }, warning.message),
  });
  // JWT actor tokens must be addressed to the issuer itself (see grants/actor-token.ts). A wrong one is
  // the exchanging client's mistake, answered and audited there (actor_token_invalid): no warning.
  const actorVerifier = createVerifier({
    ...ownKeys,
    audience: config.issuer,
    cache: false,
    onWarning: false,
  });
  registerGrants(provider, {
    store,
    config,
    log: deps.log,
    audit: deps.audit,
    limiter: deps.limiter,
    actorVerifier: () => actorVerifier,
  });
  traceProvider(provider, `${config.basePath}/oidc`); // its phases as spans, once the grants are in
  return {
    provider,
    callback: provider.callback() as OidcInstance['callback'],
    verifier,
    async validateApplication(app) {
      try {
        await provider.Client.validate(toClientMetadata(app, deps.keys.signing[0]!.alg));
      } catch (err) {
        const description =
          (err as { error_description?: string }).error_description ?? 'invalid client metadata';
        throw new ValidationError('Invalid application', [{ path: 'body', message: description }]);
      }
    },
  };
}
