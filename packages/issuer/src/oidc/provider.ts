/**
 * The construction of the oidc-provider `Provider` from its configuration (configuration.ts): proxy
 * trust, the pinned public origin, DPoP, JWT introspection and revocation, client reuse across token
 * requests, client secrets stored as SHA-256 digests and compared by digest in constant time, bounded
 * error bodies, `unauthorized_client` for a grant type a client is not allowed, and event logging.
 * Clients enabled for token exchange get the RFC 8693 grant type (client-metadata.ts).
 *
 * @module
 */
import Provider from 'oidc-provider';
import { installDpop } from '../dpop.js';
import { GRANT_NOT_ALLOWED } from '../grants/exchange-audit.js';
import { installImpersonationIntrospection } from '../grants/impersonation-introspection.js';
import { reuseTokenClients } from '../grants/token-request.js';
import { boundErrorBody } from '../internal/error-echo.js';
import { epoch } from '../internal/ids.js';
import { verifySecret } from '../internal/secrets.js';
import { buildConfiguration, type ProviderDeps } from './configuration.js';
import { logProviderEvents } from './events.js';
import { pinPublicOrigin } from './public-origin.js';

/**
 * Construct the provider: configuration, hashed-secret comparison, proxy trust and event logging.
 *
 * @example
 * ```ts
 * const provider = createProvider({ config, store, keys, cookieKeys, dpopNonceSecret, log });
 * http.createServer(provider.callback());
 * ```
 */
export function createProvider(deps: ProviderDeps): Provider {
  const provider = new Provider(deps.config.issuer, buildConfiguration(deps));
  provider.proxy = deps.config.trustProxy;
  pinPublicOrigin(provider, deps.config.baseUrl);
  installDpop(provider, deps.store);
  installImpersonationIntrospection(provider, deps.store, deps.log, epoch);
  reuseTokenClients(provider, deps.store);
  // Secrets are stored as SHA-256 digests: compare the digest of the presented secret (catalogue B49, B50).
  provider.Client.prototype.compareClientSecret = async function compareClientSecret(
    this: { clientSecret?: string },
    actual: string,
  ) {
    return typeof actual === 'string' && verifySecret(actual, this.clientSecret ?? '');
  };
  // RFC 6749 §5.2: a client not allowed a grant type gets unauthorized_client (oidc-provider says invalid_request).
  // Every error body echoes a bounded part of the request only (internal/error-echo.ts).
  provider.use(async (ctx, next) => {
    await next();
    const bounded = boundErrorBody(ctx.body);
    if (bounded !== ctx.body) ctx.body = bounded;
    const body = ctx.body as { error?: unknown; error_description?: unknown } | undefined;
    if (
      ctx.oidc?.route === 'token' &&
      ctx.status === 400 &&
      body?.error === 'invalid_request' &&
      body.error_description === GRANT_NOT_ALLOWED
    ) {
      ctx.body = { ...body, error: 'unauthorized_client' };
    }
  });
  logProviderEvents(provider, deps.log);
  return provider;
}
