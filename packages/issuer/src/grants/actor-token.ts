/**
 * Actor tokens of RFC 8693 token exchange: proof of who really acts. An actor token must be a valid,
 * unexpired access token issued by this issuer to a user (not to an application), whose scope list
 * holds `openid` as a whole entry (`openidx` or `notopenid` do not count, catalogue B17).
 *
 * The access tokens a signed-in user holds for OpenID scopes (no `resource`) are opaque: they are
 * looked up through oidc-provider's own `AccessToken` model, so expiry, revocation (the token or its
 * grant) and sender constraints are oidc-provider's own checks, and an audience-bound token is refused.
 *
 * A JWT-shaped actor token is verified with `@gatehouse/core` (RFC 9068 strict profile: `typ` must be
 * `at+jwt`) against this issuer's identifier and keys, with the audience set to the issuer identifier:
 * an ID token fails the `typ` check (B7), a token for an API fails the audience check (B16), a token
 * from another issuer or signed by another key fails the issuer or signature check (B19). If the
 * verified token carries `act`, the new chain nests it.
 *
 * @module
 */
import { type AuthInfo, isAuthError, MAX_ACTOR_DEPTH, parseActor, type Verifier } from '@gatehouse/core';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { TokenExchangeError } from '../errors.js';
import type { Store } from '../storage/store.js';
import type { ActClaim } from './exchange-state.js';

/** The actor behind a verified actor token. */
export interface VerifiedActor {
  /** The acting user. */
  readonly userId: string;
  /** The chain the actor token itself carried, if any. */
  readonly act: ActClaim | undefined;
}

const invalid = (description: string) => new TokenExchangeError('actor_token_invalid', description);

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** Descriptions per `@gatehouse/core` reason. */
function describe(reason: string): string {
  switch (reason) {
    case 'typ':
      return 'the actor token is not an access token (typ must be at+jwt; ID tokens are refused)';
    case 'audience':
      return 'the actor token was issued for another audience';
    case 'issuer':
    case 'signature':
    case 'key_not_found':
    case 'algorithm':
      return 'the actor token was not issued by this issuer';
    case 'expired':
    case 'not_yet_valid':
      return 'the actor token has expired or is not yet valid';
    default:
      return 'the actor token is not a valid access token';
  }
}

function toAct(value: unknown): ActClaim | undefined {
  const actor = parseActor(value);
  if (actor === null) throw invalid('the actor token carries an invalid act claim');
  if (actor === undefined) return undefined;
  const strip = (link: typeof actor): ActClaim =>
    link.act === undefined ? { sub: link.sub } : { sub: link.sub, act: strip(link.act) };
  return strip(actor);
}

async function fromJwt(
  value: string,
  verifier: Verifier,
): Promise<{ sub: string; scopes: readonly string[]; act: ActClaim | undefined }> {
  let info: AuthInfo;
  try {
    info = await verifier.verify(value, { allowDelegation: true });
  } catch (err) {
    if (isAuthError(err)) throw invalid(describe(err.reason));
    throw err;
  }
  if (info.subject === undefined) throw invalid('the actor token has no subject');
  if (info.subject === info.clientId)
    throw invalid('the actor token was issued to an application, not a user');
  return { sub: info.subject, scopes: info.scopes, act: toAct(info.claims.act) };
}

async function fromOpaque(
  ctx: KoaContextWithOIDC,
  value: string,
): Promise<{ sub: string; scopes: readonly string[]; act: ActClaim | undefined }> {
  const { provider } = ctx.oidc;
  const token = await provider.AccessToken.find(value);
  if (token === undefined || token.isExpired) throw invalid('the actor token is unknown, expired or revoked');
  if (token.aud !== undefined) throw invalid('the actor token was issued for another audience');
  if (token.isSenderConstrained()) throw invalid('sender-constrained actor tokens are not supported');
  if (typeof token.accountId !== 'string' || token.accountId.length === 0)
    throw invalid('the actor token was not issued to a user');
  const grant = token.grantId === undefined ? undefined : await provider.Grant.find(token.grantId);
  if (grant === undefined || grant.accountId !== token.accountId || grant.clientId !== token.clientId)
    throw invalid('the actor token is unknown, expired or revoked');
  const extra = (token.extra ?? {}) as { act?: unknown };
  return { sub: token.accountId, scopes: [...token.scopes], act: toAct(extra.act) };
}

/**
 * Verify an actor token and resolve the acting user.
 *
 * @example
 * ```ts
 * const actor = await verifyActorToken(ctx, params.actor_token, { store, verifier });
 * const act = { sub: actor.userId, ...(actor.act ? { act: actor.act } : {}) };
 * ```
 */
export async function verifyActorToken(
  ctx: KoaContextWithOIDC,
  value: string,
  deps: { readonly store: Store; readonly verifier: Verifier },
): Promise<VerifiedActor> {
  const token = JWT_SHAPE.test(value) ? await fromJwt(value, deps.verifier) : await fromOpaque(ctx, value);
  // Whole scope entries only: "openidx" or "notopenid" never count (B17).
  if (!token.scopes.includes('openid')) throw invalid('the actor token does not carry the openid scope');
  const user = await deps.store.users.get(token.sub);
  if (user === undefined) throw invalid('the actor token was not issued to a known user');
  if (user.suspended) throw invalid('the actor is suspended');
  let depth = 0;
  for (let link = token.act; link !== undefined; link = link.act) depth++;
  if (depth + 1 > MAX_ACTOR_DEPTH)
    throw new TokenExchangeError(
      'actor_chain_too_deep',
      `the act chain would exceed ${MAX_ACTOR_DEPTH} levels`,
    );
  return { userId: user.id, act: token.act };
}
