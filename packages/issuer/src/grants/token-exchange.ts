/**
 * RFC 8693 token exchange, for impersonation: an application enabled for token exchange redeems a
 * subject token (minted by `POST /api/subject-tokens`) or a personal access token for a JWT access
 * token of the user, for one registered API resource.
 *
 * Order of checks: oidc-provider authenticates the client (confidential clients must, public ones send
 * `client_id`; `401 invalid_client`), checks that the client may use the grant (`unauthorized_client`)
 * and refuses repeated parameters (`invalid_request`). Then: the failure limit (429), the parameters
 * (`invalid_request`, `exchange-parameters.ts`), the resource (`invalid_target`), the application's actor-required policy and
 * the actor token (`invalid_request`) — none of which touches the subject token. The DPoP proof, when
 * sent, is checked with the parameters
 * (`invalid_dpop_proof`, `use_dpop_nonce`; a replayed proof and a missing one from an application
 * that requires DPoP get `invalid_request`): the issued token is then bound to its key (`cnf.jkt`,
 * `token_type: DPoP`), and a DPoP-bound actor token must match that key. Then the subject token is
 * looked at (unknown, expired or used:
 * refused), and every later failure (application or actor binding, user state, scopes, the custom
 * claims) still burns it. Scopes granted are the requested ones that the user's roles grant for the
 * resource (and, for a PAT, that the PAT allows); an empty request grants none. The answer never holds
 * a refresh token, and `act` appears only when an actor token was verified. An impersonation token
 * (from a subject token) lives as long as its application's `impersonationTokenTtl`, capped by the
 * resource's lifetime (`impersonation-policy.ts`), and is recorded with the consume
 * (`impersonation-tokens.ts`), for introspection and for ending it early.
 *
 * What the exchange reads (client, failure window, resource, token, user, role scopes) was read with
 * the client (`token-request.ts`). The token is signed, then consumed by one conditional update that
 * also records the success event; only the winner of that update answers with it, so single use is
 * exactly as strong as a consume before signing, and on PostgreSQL an exchange is two round trips.
 *
 * Every exchange is an audit event, successful or not, with its reason (`exchange-audit.ts`).
 * Whenever an exchange consumes a subject token (or uses a PAT), its event is written by the same
 * statement (PostgreSQL) or transaction (SQLite) as the change: a crash leaves both or neither, and a
 * refused exchange after the subject was found is still two round trips.
 *
 * @module
 */
import type { KoaContextWithOIDC, Provider } from 'oidc-provider';
import { errors } from 'oidc-provider';
import { tokenRequestProof } from '../dpop.js';
import { TokenExchangeError, TooManyExchangeFailuresError } from '../errors.js';
import { boundScopes } from '../internal/error-echo.js';
import type { PersonalAccessTokenRecord, ResourceRecord, UserRecord } from '../storage/store.js';
import { verifyActorToken } from './actor-token.js';
import { type ExchangeAttempt, failureEvent } from './exchange-audit.js';
import {
  checkParameters,
  EXCHANGE_PARAMETERS,
  type ExchangeParams,
  required,
} from './exchange-parameters.js';
import { type ActClaim, setExchangeState } from './exchange-state.js';
import {
  type LookupHooks,
  redeemSubjectToken,
  type Subject,
  usePersonalAccessToken,
} from './exchange-subject.js';
import { limiterKey } from './failure-limiter.js';
import { checkActorRequired, impersonationTokenTtl } from './impersonation-policy.js';
import { useRecorded } from './impersonation-tokens.js';
import { rememberResource } from './roles-claim.js';
import { readTokenRequest, type TokenRequestRead } from './token-request.js';
import { TOKEN_EXCHANGE_GRANT_TYPE, TOKEN_TYPES } from './token-types.js';
import type { GrantContext, GrantModule } from './types.js';

export { TOKEN_EXCHANGE_GRANT_TYPE, TOKEN_TYPES };

/** Requests whose failure is audited already (with the consumption of the subject token it refused). */
const audited = new WeakSet<object>();

async function resolveResource(
  context: GrantContext,
  indicator: string,
  { query, records }: TokenRequestRead,
): Promise<ResourceRecord> {
  const url = URL.parse(indicator);
  if (url === null || indicator.includes('#'))
    throw new errors.InvalidTarget('resource indicator must be an absolute URI without a fragment');
  if (indicator === context.config.managementAudience)
    throw new errors.InvalidTarget('the Management API cannot be a token exchange target');
  const resource =
    query.indicator === indicator
      ? records.resource
      : await context.store.resources.findByIndicator(indicator);
  if (resource === undefined) throw new errors.InvalidTarget('resource indicator is not registered');
  return resource;
}

function checkUser(user: UserRecord | undefined): UserRecord {
  if (user === undefined) throw new TokenExchangeError('user_missing', 'the user no longer exists');
  if (user.suspended) throw new TokenExchangeError('user_suspended', 'the user is suspended');
  return user;
}

async function grantedScopes(
  context: GrantContext,
  user: UserRecord,
  resource: ResourceRecord,
  { query, records }: TokenRequestRead,
  requestedScope: string | undefined,
  pat: PersonalAccessTokenRecord | undefined,
): Promise<{ granted: string[]; available: string[] }> {
  const available = [
    ...(query.indicator === resource.indicator && records.user?.id === user.id
      ? records.grantedScopes
      : await context.store.roles.grantedScopes({ userId: user.id }, resource.indicator)),
  ];
  const requested = [...new Set((requestedScope ?? '').split(' ').filter((scope) => scope.length > 0))];
  const limit = pat?.scopes == null ? undefined : new Set(pat.scopes);
  const granted = requested.filter((scope) => available.includes(scope) && (limit?.has(scope) ?? true));
  if (requested.length > 0 && granted.length === 0) {
    throw new errors.InvalidScope(
      pat === undefined
        ? "none of the requested scopes is granted by the user's roles"
        : "none of the requested scopes is granted by the user's roles and the personal access token",
      boundScopes(requested.join(' ')),
    );
  }
  return { granted, available };
}

/** Everything up to the subject: the limit, the parameters, the resource and the actor. */
async function prepare(
  ctx: KoaContextWithOIDC,
  context: GrantContext,
  attempt: ExchangeAttempt,
  read: TokenRequestRead,
) {
  const params = ctx.oidc.params as ExchangeParams;
  const now = read.query.now;
  const wait = context.limiter.blockedFor(read.records.failures, now);
  if (wait > 0) throw new TooManyExchangeFailuresError(wait);
  const { subjectType } = checkParameters(params);
  const resource = await resolveResource(context, required(params, 'resource'), read);
  attempt.details.resource = resource.indicator;
  attempt.details.subjectTokenType = subjectType;
  checkActorRequired(read.records.application, {
    impersonation: subjectType === TOKEN_TYPES.accessToken,
    hasActor: params.actor_token !== undefined,
  });
  const dPoP = await tokenRequestProof(ctx);
  if (dPoP === undefined && ctx.oidc.client!.dpopBoundAccessTokens === true)
    throw new TokenExchangeError('dpop_required', 'DPoP proof JWT not provided');
  // The actor is verified before the subject token is looked at, so even a refused replay names who tried.
  let act: ActClaim | undefined;
  if (params.actor_token !== undefined) {
    const actor = await verifyActorToken(ctx, params.actor_token, {
      store: context.store,
      verifier: context.actorVerifier(),
      proofKey: dPoP?.thumbprint,
    });
    attempt.actorId = actor.userId;
    act = actor.act === undefined ? { sub: actor.userId } : { sub: actor.userId, act: actor.act };
  }
  return { params, now, subjectType, resource, act, dPoP };
}

/** The subject token or PAT of the request, refused when unknown, expired or used. */
function findSubject(
  ctx: KoaContextWithOIDC,
  context: GrantContext,
  attempt: ExchangeAttempt,
  { records }: TokenRequestRead,
  { params, now, subjectType }: { params: ExchangeParams; now: number; subjectType: string },
): Promise<Subject> {
  const key = limiterKey(ctx.oidc.client!.clientId, ctx.ip);
  const hooks = (idField: 'subjectTokenId' | 'personalAccessTokenId') => ({
    onUnknown: () => context.limiter.fail(key, now),
    onFound: (record: Parameters<LookupHooks['onFound']>[0]) => {
      attempt.userId = record.userId;
      attempt.details[idField] = record.id;
      // The integrator's context (ticket, reason) travels with every outcome, so a reader of one event
      // learns why, without finding the subject token's creation.
      if (record.context !== undefined && Object.keys(record.context).length > 0)
        attempt.details.context = record.context;
    },
  });
  return subjectType === TOKEN_TYPES.accessToken
    ? redeemSubjectToken(
        context.store,
        params.subject_token!,
        records.subjectToken,
        now,
        hooks('subjectTokenId'),
      )
    : usePersonalAccessToken(
        context.store,
        params.subject_token!,
        records.personalAccessToken,
        now,
        hooks('personalAccessTokenId'),
      );
}

async function exchange(
  ctx: KoaContextWithOIDC,
  context: GrantContext,
  attempt: ExchangeAttempt,
): Promise<void> {
  const client = ctx.oidc.client!;
  const read = await readTokenRequest(context.store, ctx, client.clientId);
  const request = await prepare(ctx, context, attempt, read);
  const { params, subjectType, resource, act, dPoP } = request;
  const subject = await findSubject(ctx, context, attempt, read, request);
  const subjectToken = subject.subjectToken;
  let minted: { value: string; token: InstanceType<Provider['AccessToken']>; granted: string[] };
  try {
    if (subjectToken?.applicationId != null && subjectToken.applicationId !== client.clientId) {
      throw new TokenExchangeError(
        'application_mismatch',
        'the subject token is bound to another application',
      );
    }
    const user = checkUser(
      read.records.user?.id === subject.userId
        ? read.records.user
        : await context.store.users.get(subject.userId),
    );
    if (subjectToken?.actorId != null) {
      if (act === undefined) {
        throw new TokenExchangeError(
          'actor_token_required',
          'the subject token is bound to an actor: send that user’s access token as actor_token',
        );
      }
      if (act.sub !== subjectToken.actorId) {
        throw new TokenExchangeError(
          'actor_mismatch',
          'the actor token belongs to another user than the subject token is bound to',
        );
      }
    }
    const pat = subject.personalAccessToken;
    const { granted, available } = await grantedScopes(context, user, resource, read, params.scope, pat);
    const { provider } = ctx.oidc;
    rememberResource(ctx, resource);
    const resourceServer = new provider.ResourceServer(resource.indicator, {
      audience: resource.indicator,
      scope: available.join(' '),
      accessTokenTTL:
        subjectToken === undefined
          ? resource.accessTokenTtl
          : impersonationTokenTtl(read.records.application, resource),
      accessTokenFormat: 'jwt',
    });
    const token = new provider.AccessToken({
      accountId: user.id,
      client,
      scope: granted.length > 0 ? granted.join(' ') : undefined,
      resourceServer,
      gty: TOKEN_EXCHANGE_GRANT_TYPE,
    } as ConstructorParameters<Provider['AccessToken']>[0]);
    if (dPoP !== undefined) token.setThumbprint('jkt', dPoP.thumbprint);
    setExchangeState(ctx, {
      subjectTokenType: subjectType,
      act,
      subjectTokenContext: subjectToken?.context ?? {},
    });
    minted = { value: await token.save(), token, granted };
  } catch (err) {
    // Refused after the subject was found: a subject token is burnt all the same, together with the
    // failure event (unless another redemption consumed it first, which is then the refusal, audited
    // by the handler), and a PAT's use is recorded with it.
    const event = context.audit.prepare(failureEvent(ctx, attempt, err));
    if (await subject.spend(event)) {
      audited.add(ctx);
      context.audit.stored(event);
    }
    throw err;
  }
  // One statement: the token is consumed and the success recorded, or neither (another redemption
  // won: the token just signed is dropped unsent, and the refusal is audited without its jti).
  const event = context.audit.prepare({
    type: 'token_exchange.succeeded',
    applicationId: client.clientId,
    userId: attempt.userId,
    actorId: attempt.actorId,
    details: {
      ...attempt.details,
      scope: minted.granted.join(' '),
      jti: minted.token.jti,
      tokenType: minted.token.tokenType,
    },
  });
  await useRecorded(subject, event, minted.value, { applicationId: client.clientId, act });
  audited.add(ctx);
  context.audit.stored(event);
  ctx.body = {
    access_token: minted.value,
    issued_token_type: TOKEN_TYPES.accessToken,
    token_type: minted.token.tokenType,
    expires_in: minted.token.expiration,
    scope: minted.granted.join(' '),
  };
}

function recordFailure(
  context: GrantContext,
  ctx: KoaContextWithOIDC,
  attempt: ExchangeAttempt,
  err: unknown,
): Promise<unknown> {
  audited.add(ctx);
  return context.audit.record(failureEvent(ctx, attempt, err));
}

/**
 * The token-exchange grant module.
 *
 * @example
 * ```ts
 * registerGrants(provider, context, [tokenExchangeGrant]);
 * ```
 */
export const tokenExchangeGrant: GrantModule = {
  grantType: TOKEN_EXCHANGE_GRANT_TYPE,
  parameters: EXCHANGE_PARAMETERS,
  dupes: [],
  handler: (context) => async (ctx) => {
    const attempt: ExchangeAttempt = { userId: null, actorId: null, details: {} };
    try {
      await exchange(ctx, context, attempt);
    } catch (err) {
      if (err instanceof TooManyExchangeFailuresError) ctx.set('retry-after', String(err.retryAfter));
      try {
        // Unless recorded already, with the consumption of the subject token it refused.
        if (!audited.has(ctx)) await recordFailure(context, ctx, attempt, err);
      } catch (auditErr) {
        context.log.error(
          { event: 'audit.failed', err: { message: (auditErr as Error).message } },
          'could not record a token exchange failure',
        );
      }
      throw err;
    }
  },
  setup(provider, context) {
    // Failures before the handler runs (client authentication, grant not allowed, repeated parameters).
    const on = provider.on.bind(provider) as (event: string, listener: (...args: never[]) => void) => unknown;
    on('grant.error', (ctx: KoaContextWithOIDC, err: unknown) => {
      if (audited.has(ctx) || ctx.oidc?.params?.grant_type !== TOKEN_EXCHANGE_GRANT_TYPE) return;
      recordFailure(context, ctx, { userId: null, actorId: null, details: {} }, err).catch((auditErr) =>
        context.log.error(
          { event: 'audit.failed', err: { message: (auditErr as Error).message } },
          'could not record a token exchange failure',
        ),
      );
    });
  },
};
