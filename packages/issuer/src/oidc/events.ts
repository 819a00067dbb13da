/**
 * What the provider's events put in the issuer's log: OAuth errors by code (never a value), server
 * errors (not those of `getCustomJwtClaims`, already logged by category), and each token issued.
 *
 * @module
 */
import type { KoaContextWithOIDC, Provider } from 'oidc-provider';
import type { Logger } from 'pino';
import { CustomClaimsError } from '../errors.js';

/** OAuth errors worth a log line, by provider event name. Values are never logged, only codes. */
const ERROR_EVENTS = [
  'authorization.error',
  'grant.error',
  'introspection.error',
  'revocation.error',
  'userinfo.error',
  'end_session.error',
  'backchannel.error',
  'jwks.error',
  'discovery.error',
] as const;

interface OAuthErrorLike {
  error?: unknown;
  error_description?: unknown;
  status?: unknown;
}

/**
 * Log `provider`'s error events, server errors and issued tokens to `log`.
 *
 * @example
 * ```ts
 * logProviderEvents(provider, log); // {"event":"grant.success","grantType":"client_credentials",…}
 * ```
 */
export function logProviderEvents(provider: Provider, log: Logger): void {
  const on = provider.on.bind(provider) as (event: string, listener: (...args: never[]) => void) => unknown;
  for (const event of ERROR_EVENTS) {
    on(event, (_ctx: unknown, err: OAuthErrorLike) => {
      // The issuer answers introspection and revocation of JWTs itself (grants/impersonation-introspection.ts).
      const jwtRefusal = event === 'introspection.error' || event === 'revocation.error';
      if (jwtRefusal && err.error === 'unsupported_token_type') return;
      log.info(
        { event, error: err.error, description: err.error_description, status: err.status },
        'oauth error',
      );
    });
  }
  on('server_error', (_ctx: unknown, err: Error) => {
    // Already logged (by category only) where it happened; its cause is user code and stays out of logs.
    if (err instanceof CustomClaimsError) return;
    log.error(
      { event: 'server_error', err: { type: err.name, message: err.message, stack: err.stack } },
      'oidc-provider error',
    );
  });
  on('grant.success', (ctx: KoaContextWithOIDC) => {
    log.info(
      { event: 'grant.success', grantType: ctx.oidc.params?.grant_type, clientId: ctx.oidc.client?.clientId },
      'token issued',
    );
  });
}
