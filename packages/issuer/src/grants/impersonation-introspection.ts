/**
 * Introspection (RFC 7662) of impersonation tokens. oidc-provider refuses to introspect any JWT
 * (`unsupported_token_type`, after it has authenticated the client and read the parameters); for a
 * JWT this issuer recorded as an impersonation token (`impersonation-tokens.ts`), the issuer answers
 * instead: `active: true` with the token's claims (`act` included) while it is live, and
 * `active: false` once it is ended or expired — or when the client may not introspect it, or the JWT
 * is not one it recorded. Any other refusal stays oidc-provider's.
 *
 * @module
 */
import type { KoaContextWithOIDC, Provider } from 'oidc-provider';
import { hashSecret } from '../internal/secrets.js';
import type { Store } from '../storage/store.js';
import { looksLikeJwt } from './token-types.js';

/**
 * Whether `client` may introspect a token issued to `tokenClientId`: confidential clients any token,
 * public clients only their own (oidc-provider's `introspection.allowedPolicy`).
 *
 * @example
 * ```ts
 * mayIntrospect({ clientAuthMethod: 'none', clientId: 'spa' }, 'console'); // false
 * ```
 */
export function mayIntrospect(
  client: { readonly clientAuthMethod?: string | undefined; readonly clientId: string },
  tokenClientId: unknown,
): boolean {
  return client.clientAuthMethod !== 'none' || tokenClientId === client.clientId;
}

/** The answer for `token` at `now`, as `client` may see it. */
async function answer(store: Store, issuer: string, ctx: KoaContextWithOIDC, token: string, now: number) {
  const found = await store.impersonationTokens.findActive(hashSecret(token), now);
  if (found === undefined || !mayIntrospect(ctx.oidc.client!, found.payload.clientId))
    return { active: false };
  const payload = found.payload as Record<string, unknown> & {
    jkt?: string;
    extra?: Record<string, unknown>;
  };
  return {
    ...payload.extra,
    active: true,
    sub: payload.accountId,
    client_id: payload.clientId,
    exp: payload.exp,
    iat: payload.iat,
    iss: issuer,
    jti: payload.jti,
    aud: payload.aud,
    scope: payload.scope || undefined,
    token_type: payload.jkt === undefined ? 'Bearer' : 'DPoP',
    ...(payload.jkt === undefined ? {} : { cnf: { jkt: payload.jkt } }),
  };
}

/**
 * Answer introspection requests for impersonation tokens (see the module comment).
 *
 * @example
 * ```ts
 * installImpersonationIntrospection(provider, store, epoch);
 * ```
 */
export function installImpersonationIntrospection(provider: Provider, store: Store, now: () => number): void {
  provider.use(async (ctx, next) => {
    await next();
    const oidc = (ctx as KoaContextWithOIDC).oidc;
    const token = oidc?.params?.token;
    if (oidc?.route !== 'introspection' || ctx.status !== 400 || oidc.client === undefined) return;
    if (typeof token !== 'string' || !looksLikeJwt(token)) return;
    ctx.status = 200;
    ctx.set('cache-control', 'no-store');
    ctx.body = await answer(store, provider.issuer, ctx as KoaContextWithOIDC, token, now());
  });
}
