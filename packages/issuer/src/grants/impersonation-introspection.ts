/**
 * Introspection (RFC 7662) of impersonation tokens. oidc-provider refuses to introspect any JWT
 * (`unsupported_token_type`, after it has authenticated the client and read the parameters); for a
 * JWT this issuer recorded as an impersonation token (`impersonation-tokens.ts`), the issuer answers
 * instead: `active: true` with the token's claims (`act` included) while it is live, and
 * `active: false` once it is ended or expired — or when the client may not introspect it, or the JWT
 * is not one it recorded. Likewise at revocation (RFC 7009), where oidc-provider refuses JWTs too: the
 * application an impersonation token was issued to may revoke it, which ends it. Any other refusal
 * (client authentication, parameters) stays oidc-provider's.
 *
 * @module
 */
import type { KoaContextWithOIDC, Provider } from 'oidc-provider';
import type { Logger } from 'pino';
import { type AuditTrail, createAuditTrail } from '../internal/audit.js';
import { hashSecret } from '../internal/secrets.js';
import type { Store } from '../storage/store.js';
import { looksLikeJwt } from './token-types.js';

/**
 * Whether `client` may introspect a token issued to `tokenClientId` (RFC 7662 §4; oidc-provider's
 * `introspection.allowedPolicy`): a client learns about its own tokens; only confidential
 * Machine-to-Machine applications (what resource servers introspect with) about other clients' tokens.
 *
 * @example
 * ```ts
 * mayIntrospect(spa, 'console'); // false: a public client, not the token's
 * ```
 */
export function mayIntrospect(
  client: {
    readonly clientAuthMethod?: string | undefined;
    readonly clientId: string;
    grantTypeAllowed(type: string): boolean;
  },
  tokenClientId: unknown,
): boolean {
  return (
    tokenClientId === client.clientId ||
    (client.clientAuthMethod !== 'none' && client.grantTypeAllowed('client_credentials'))
  );
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
 * RFC 7009 revocation of an impersonation token by the application it was issued to: the token is
 * ended (as `POST /api/impersonations/end` would) with an `impersonation.ended` audit event. Any other
 * JWT is left alone; the answer is `200` either way (RFC 7009 §2.2).
 */
async function revoke(store: Store, audit: AuditTrail, ctx: KoaContextWithOIDC, token: string, now: number) {
  const clientId = ctx.oidc.client!.clientId;
  const found = await store.impersonationTokens.findActive(hashSecret(token), now);
  if (found === undefined || found.applicationId !== clientId) return;
  const event = audit.prepare({
    type: 'impersonation.ended',
    applicationId: clientId,
    userId: found.userId,
    actorId: found.actorId,
    details: {
      endedBy: { clientId, subject: null },
      revoked: true,
      subjectTokenId: found.subjectTokenId,
      users: [found.userId],
      endedTokens: [found.jti],
      cancelledSubjectTokens: [],
    },
  });
  if (await store.impersonationTokens.revoke(found.tokenHash, clientId, now, event)) audit.stored(event);
}

/**
 * Answer introspection and revocation requests for impersonation tokens (see the module comment).
 *
 * @example
 * ```ts
 * installImpersonationIntrospection(provider, store, log, epoch);
 * ```
 */
export function installImpersonationIntrospection(
  provider: Provider,
  store: Store,
  log: Logger,
  now: () => number,
): void {
  const audit = createAuditTrail(store, log, now);
  provider.use(async (ctx, next) => {
    await next();
    const oidc = (ctx as KoaContextWithOIDC).oidc;
    const token = oidc?.params?.token;
    const route = oidc?.route;
    if ((route !== 'introspection' && route !== 'revocation') || ctx.status !== 400) return;
    if (oidc.client === undefined || typeof token !== 'string' || !looksLikeJwt(token)) return;
    ctx.status = 200;
    if (route === 'revocation') {
      ctx.body = '';
      await revoke(store, audit, ctx as KoaContextWithOIDC, token, now());
      return;
    }
    ctx.set('cache-control', 'no-store');
    ctx.body = await answer(store, provider.issuer, ctx as KoaContextWithOIDC, token, now());
  });
}
