/**
 * The `roles` claim of access tokens for API resources that opt in (`rolesClaim`): the names of the
 * token subject's roles that hold at least one scope of the resource, sorted — for a user token
 * (authorization code, refresh, token exchange: the subject, never the actor) the user's roles, for
 * client credentials the machine-to-machine application's roles. Written after the custom claims, so
 * a `getCustomJwtClaims` function can never change it for an opted-in resource.
 *
 * The resource read by the token request (resources.ts, the token exchange) is remembered for the
 * request, so a resource that did not opt in costs no extra query; an opted-in one costs one read of
 * the roles. More than {@link MAX_ROLES_CLAIM} roles refuse the token ({@link TooManyRolesError}).
 *
 * @module
 */
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { Logger } from 'pino';
import { MAX_ROLES_CLAIM } from '../config/constants.js';
import { TooManyRolesError } from '../errors.js';
import type { ResourceRecord, Store } from '../storage/store.js';

/** The resource each token request read, by request. */
const read = new WeakMap<object, ResourceRecord>();

/**
 * Remember the resource a token request read, so the `roles` claim needs no second lookup.
 *
 * @example
 * ```ts
 * if (resource !== undefined) rememberResource(ctx, resource);
 * ```
 */
export function rememberResource(ctx: object, resource: ResourceRecord): void {
  read.set(ctx, resource);
}

/** What the JWT customizer knows about the token being issued. */
export interface RolesClaimToken {
  readonly accountId?: unknown;
  readonly clientId?: unknown;
  readonly resourceServer?: { readonly audience?: unknown } | undefined;
}

/**
 * Set (or, for a resource that did not opt in, leave alone) the `roles` claim of a JWT access token.
 *
 * @example
 * ```ts
 * await applyRolesClaim(store, log, ctx, token, jwt.payload);
 * ```
 */
export async function applyRolesClaim(
  store: Store,
  log: Logger,
  ctx: KoaContextWithOIDC | undefined,
  token: RolesClaimToken,
  payload: Record<string, unknown>,
): Promise<void> {
  const indicator = token.resourceServer?.audience;
  if (typeof indicator !== 'string') return;
  const remembered = ctx === undefined ? undefined : read.get(ctx);
  const resource =
    remembered?.indicator === indicator ? remembered : await store.resources.findByIndicator(indicator);
  if (resource?.rolesClaim !== true) return;
  const holder =
    typeof token.accountId === 'string'
      ? { userId: token.accountId }
      : { applicationId: String(token.clientId) };
  const roles = await store.roles.rolesFor(holder, indicator);
  if (roles.length > MAX_ROLES_CLAIM) {
    log.warn(
      { event: 'roles_claim.too_many', resourceId: resource.id, count: roles.length, limit: MAX_ROLES_CLAIM },
      'too many roles for the roles claim; no token issued',
    );
    throw new TooManyRolesError(roles.length);
  }
  payload.roles = [...roles];
}
