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
 * Sender-constrained actor tokens (catalogue D26): an opaque actor token bound to a DPoP key
 * (`cnf.jkt`, from a sign-in with DPoP) is honoured only when the exchange itself carries a valid
 * DPoP proof made with that same key, so a stolen actor token is useless without its key. JWT actor
 * tokens bound to a key, and certificate-bound ones, are refused: send the OpenID Connect access token
 * of the sign-in instead.
 *
 * @module
 */
import { type AuthInfo, isAuthError, MAX_ACTOR_DEPTH, parseActor, type Verifier } from '@gatehouse/core';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { TokenExchangeError } from '../errors.js';
import type { Store } from '../storage/store.js';
import type { ActClaim } from './exchange-state.js';
import { looksLikeJwt } from './token-types.js';

/** The actor behind a verified actor token. */
export interface VerifiedActor {
  /** The acting user. */
  readonly userId: string;
  /** The chain the actor token itself carried, if any. */
  readonly act: ActClaim | undefined;
}

const invalid = (description: string) => new TokenExchangeError('actor_token_invalid', description);

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
    case 'bound_token':
    case 'certificate':
      return 'sender-constrained JWT actor tokens are not accepted: send the OpenID Connect access token of the sign-in';
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
  proofKey: string | undefined,
): Promise<{ sub: string; scopes: readonly string[]; act: ActClaim | undefined }> {
  const { provider } = ctx.oidc;
  const token = await provider.AccessToken.find(value);
  if (token === undefined || token.isExpired) throw invalid('the actor token is unknown, expired or revoked');
  if (token.aud !== undefined) throw invalid('the actor token was issued for another audience');
  if (token['x5t#S256'] !== undefined) throw invalid('certificate-bound actor tokens are not supported');
  if (token.jkt !== undefined && token.jkt !== proofKey) {
    throw new TokenExchangeError(
      'actor_token_key_mismatch',
      proofKey === undefined
        ? 'the actor token is bound to a DPoP key: send a DPoP proof made with that key'
        : 'the actor token is bound to another DPoP key than the proof of this request',
    );
  }
  if (typeof token.accountId !== 'string' || token.accountId.length === 0)
    throw invalid('the actor token was not issued to a user');
  const grant = token.grantId === undefined ? undefined : await provider.Grant.find(token.grantId);
  if (grant === undefined || grant.accountId !== token.accountId || grant.clientId !== token.clientId)
    throw invalid('the actor token is unknown, expired or revoked');
  const extra = (token.extra ?? {}) as { act?: unknown };
  return { sub: token.accountId, scopes: [...token.scopes], act: toAct(extra.act) };
}

/**
 * What {@link verifyActorToken} needs.
 *
 * @example
 * ```ts
 * const deps: ActorTokenDeps = { store, verifier: actorVerifier, proofKey: dPoP?.thumbprint };
 * ```
 */
export interface ActorTokenDeps {
  readonly store: Store;
  readonly verifier: Verifier;
  /** RFC 7638 thumbprint of the key of the exchange's verified DPoP proof, if it had one. */
  readonly proofKey?: string | undefined;
}

/**
 * Verify an actor token and resolve the acting user.
 *
 * @example
 * ```ts
 * const actor = await verifyActorToken(ctx, params.actor_token, { store, verifier, proofKey: dPoP?.thumbprint });
 * const act = { sub: actor.userId, ...(actor.act ? { act: actor.act } : {}) };
 * ```
 */
export async function verifyActorToken(
  ctx: KoaContextWithOIDC,
  value: string,
  deps: ActorTokenDeps,
): Promise<VerifiedActor> {
  const token = looksLikeJwt(value)
    ? await fromJwt(value, deps.verifier)
    : await fromOpaque(ctx, value, deps.proofKey);
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
