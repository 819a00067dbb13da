/**
 * Read-ahead of token requests. oidc-provider looks the client up before anything else at the token
 * endpoint (to authenticate it); for client credentials and token exchange that lookup is one
 * `store.tokenRequests.read` that also brings what the grant will need — the resource and the scopes
 * the roles grant for it, and for an exchange the failure window, the presented subject token or
 * personal access token and its user. Nothing is written and nothing is decided here: the grant makes
 * the same checks in the same order on these records, and the single-use consume stays one
 * conditional update of its own.
 *
 * On PostgreSQL this makes client credentials one round trip, and a token exchange two (this read,
 * then the consume with its audit event).
 *
 * @module
 */
import Provider, { type KoaContextWithOIDC } from 'oidc-provider';
import { epoch } from '../internal/ids.js';
import { hashSecret } from '../internal/secrets.js';
import type { ApplicationRecord, Store } from '../storage/store.js';
import type { TokenRequestQuery, TokenRequestRecords } from '../storage/tables/token-requests.js';
import { counterKey, limiterKey } from './failure-limiter.js';
import { TOKEN_EXCHANGE_GRANT_TYPE, TOKEN_TYPES } from './token-types.js';

/**
 * One read of a token request: what was asked and what was found.
 *
 * @example
 * ```ts
 * const { query, records } = await readTokenRequest(store, ctx, client.clientId);
 * if (records.resource === undefined) throw new errors.InvalidTarget();
 * ```
 */
export interface TokenRequestRead {
  readonly query: TokenRequestQuery;
  readonly records: TokenRequestRecords;
}

/** The read-ahead of each request, for the client it was read for. */
const ahead = new WeakMap<object, { readonly clientId: string; readonly read: TokenRequestRead }>();

/** Whether `ctx` is a token request that reads ahead: client credentials or token exchange. */
function readsAhead(ctx: KoaContextWithOIDC): boolean {
  if (ctx.oidc?.route !== 'token') return false;
  const grant = ctx.oidc.params?.grant_type;
  return grant === 'client_credentials' || grant === TOKEN_EXCHANGE_GRANT_TYPE;
}

/**
 * What a token request of `clientId` reads: for client credentials the client, the resource and the
 * client's role scopes; for a token exchange also the failure window of the client at its address,
 * the subject token or PAT (by digest) and its user, with the user's role scopes. Other requests:
 * `undefined`.
 *
 * @example
 * ```ts
 * const query = tokenRequestQuery(ctx, 'te-web', epoch()); // { applicationId: 'te-web', scopesOf: 'user', … }
 * ```
 */
export function tokenRequestQuery(
  ctx: KoaContextWithOIDC,
  clientId: string,
  now: number,
): TokenRequestQuery | undefined {
  if (!readsAhead(ctx)) return undefined;
  const params = ctx.oidc.params ?? {};
  const indicator = typeof params.resource === 'string' ? params.resource : undefined;
  if (params.grant_type === 'client_credentials')
    return { now, applicationId: clientId, indicator, scopesOf: 'application' };
  const value = typeof params.subject_token === 'string' ? params.subject_token : undefined;
  const digest = value === undefined ? undefined : hashSecret(value);
  return {
    now,
    applicationId: clientId,
    indicator,
    scopesOf: 'user',
    failureKey: counterKey(limiterKey(clientId, ctx.ip)),
    subjectTokenHash: params.subject_token_type === TOKEN_TYPES.accessToken ? digest : undefined,
    personalAccessTokenHash:
      params.subject_token_type === TOKEN_TYPES.personalAccessToken ? digest : undefined,
  };
}

/**
 * oidc-provider's client lookup: the application `id`. The first lookup of a client-credentials or
 * token-exchange request reads ahead for the grant (see the module comment).
 *
 * @example
 * ```ts
 * const findClient = async (id: string) => toMetadata(await findApplication(store, id));
 * ```
 */
export async function findApplication(store: Store, id: string): Promise<ApplicationRecord | undefined> {
  const ctx = Provider.ctx;
  const found = ctx === undefined ? undefined : ahead.get(ctx);
  // The same request looking the same client up again: what it read.
  if (found?.clientId === id) return found.read.records.application;
  const query = ctx === undefined || found !== undefined ? undefined : tokenRequestQuery(ctx, id, epoch());
  if (ctx === undefined || query === undefined) return store.applications.get(id);
  const records = await store.tokenRequests.read(query);
  ahead.set(ctx, { clientId: id, read: { query, records } });
  return records.application;
}

/**
 * oidc-provider's `Client.find`, reusing the `Client` it built for an application record as long as
 * the token requests' reads return that same record (they are kept per instance until the
 * configuration changes: `storage/sql/token-request-cache.ts`). oidc-provider would otherwise build
 * the client's metadata, serialise it and hash it on every request to find its own cached instance.
 * Only client-credentials and token-exchange requests take this path; every other lookup is
 * oidc-provider's own.
 *
 * @example
 * ```ts
 * reuseTokenClients(provider, store);
 * ```
 */
export function reuseTokenClients(provider: Provider, store: Store): void {
  const clients = new WeakMap<ApplicationRecord, object>();
  const find = provider.Client.find.bind(provider.Client);
  provider.Client.find = (async (id: string) => {
    const ctx = Provider.ctx;
    if (typeof id !== 'string' || ctx === undefined || !readsAhead(ctx)) return find(id);
    const application = await findApplication(store, id);
    const known = application === undefined ? undefined : clients.get(application);
    if (known !== undefined) return known;
    const client = await find(id);
    if (application !== undefined && client !== undefined) clients.set(application, client);
    return client;
  }) as typeof provider.Client.find;
}

/**
 * The read of this request for `clientId`: the read-ahead when there was one, else read now.
 *
 * @example
 * ```ts
 * const { query, records } = await readTokenRequest(store, ctx, client.clientId);
 * ```
 */
export async function readTokenRequest(
  store: Store,
  ctx: KoaContextWithOIDC,
  clientId: string,
): Promise<TokenRequestRead> {
  const found = ahead.get(ctx);
  if (found?.clientId === clientId) return found.read;
  const query = tokenRequestQuery(ctx, clientId, epoch()) ?? { now: epoch(), applicationId: clientId };
  return { query, records: await store.tokenRequests.read(query) };
}
