/**
 * Who calls the Management API and what it holds *now*: the principal behind the token (a
 * machine-to-machine application, or a person signed in to the console) and the scopes its roles
 * grant at this moment, read from the store on every request — so a role taken away through any
 * instance counts at once, whatever the token still says. What the caller holds is the meet of its
 * token and its roles: a Management API scope counts only when the token carries it (a token asked for
 * with fewer scopes holds fewer) and its roles still grant it; scopes of other APIs count when its
 * roles grant them. `all`, held both ways, holds everything.
 *
 * The scope ceiling (`ceiling.ts`) compares this with what a change would grant or whom it would act
 * on; the router checks the route's scopes against it.
 *
 * @module
 */
import type { AuthInfo } from '@gatehouse/core';
import { isConsoleUser } from '../console/access.js';
import { AccessDeniedError } from '../errors.js';
import type { ResolvedConfig } from '../issuer-config.js';
import type { RoleHolder, ScopeRecord, StoreTables } from '../storage/store.js';
import { impliedScopes } from './scopes.js';

/**
 * The caller of one Management API request, as its roles stand now.
 *
 * @example
 * ```ts
 * const authority = await loadAuthority(store, config, auth);
 * if (!authority.all && !authority.managementScopes.has('users:write')) throw new PrivilegeError('scope_not_held', '…');
 * ```
 */
export interface Authority {
  /** The client the token was issued to. */
  readonly clientId: string;
  /** The person signed in to the console, when the caller is one; else `undefined`. */
  readonly userId: string | undefined;
  /** Whose roles are the caller's: the application's, or the console user's. */
  readonly holder: RoleHolder;
  /** Whether the caller holds `all`: in its token, and through its roles now. */
  readonly all: boolean;
  /**
   * The Management API scopes the caller holds now (in its token and granted by its roles), with the
   * read scopes its write scopes imply. Holds `all` only when {@link Authority.all}.
   */
  readonly managementScopes: ReadonlySet<string>;
  /** Ids of the scopes of every other API resource that the caller's roles grant now. */
  readonly otherScopes: ReadonlySet<string>;
  /** Id of the Management API resource. */
  readonly managementResourceId: string;
}

/**
 * Whether the caller holds `scope` (a scope of any resource).
 *
 * @example
 * ```ts
 * const missing = scopes.filter((scope) => !holdsScope(authority, scope));
 * ```
 */
export function holdsScope(authority: Authority, scope: ScopeRecord): boolean {
  if (authority.all) return true;
  return scope.resourceId === authority.managementResourceId
    ? authority.managementScopes.has(scope.name)
    : authority.otherScopes.has(scope.id);
}

/**
 * Find the caller behind a verified Management API token and read what it holds now. A token of
 * anyone but a machine-to-machine application or a console user is refused (403 `access_denied`).
 *
 * @example
 * ```ts
 * const authority = await loadAuthority(store, config, await verifier.authenticate(req));
 * ```
 */
export async function loadAuthority(
  store: AuthorityStores,
  config: Pick<ResolvedConfig, 'console' | 'managementAudience'>,
  info: Pick<AuthInfo, 'clientId' | 'subject' | 'scopes'>,
  managementResourceId?: string,
): Promise<Authority> {
  const holder = await principalOf(store, config, info);
  const resourceId = managementResourceId ?? (await findManagementResource(store, config));
  const granted = await store.roles.scopesHeld(holder);
  const token = new Set(info.scopes);
  const management = new Set<string>();
  const other = new Set<string>();
  for (const scope of granted) {
    if (scope.resourceId !== resourceId) other.add(scope.id);
    else if (token.has(scope.name)) management.add(scope.name);
  }
  return {
    clientId: info.clientId!,
    userId: 'userId' in holder ? holder.userId : undefined,
    holder,
    all: management.has('all'),
    managementScopes: impliedScopes(management),
    otherScopes: other,
    managementResourceId: resourceId,
  };
}

/** The stores {@link loadAuthority} reads. */
type AuthorityStores = Pick<StoreTables, 'applications' | 'users' | 'resources' | 'roles'>;

/** The id of the built-in Management API resource (403 when it is missing: a broken database). */
async function findManagementResource(
  store: AuthorityStores,
  config: Pick<ResolvedConfig, 'managementAudience'>,
): Promise<string> {
  const resource = await store.resources.findByIndicator(config.managementAudience);
  if (resource === undefined || !resource.system)
    throw new AccessDeniedError('The Management API resource is missing; restart the issuer to restore it');
  return resource.id;
}

/**
 * {@link loadAuthority} that finds the Management API resource once: its id never changes while the
 * issuer runs (it is built in: never deleted, and its indicator follows the base URL only at start).
 *
 * @example
 * ```ts
 * const authorityOf = authorityLoader(config);
 * const authority = await authorityOf(store, auth);
 * ```
 */
export function authorityLoader(
  config: Pick<ResolvedConfig, 'console' | 'managementAudience'>,
): (store: AuthorityStores, info: Pick<AuthInfo, 'clientId' | 'subject' | 'scopes'>) => Promise<Authority> {
  let resourceId: string | undefined;
  return async (store, info) => {
    resourceId ??= await findManagementResource(store, config);
    return loadAuthority(store, config, info, resourceId);
  };
}

async function principalOf(
  store: Pick<StoreTables, 'applications' | 'users'>,
  config: Pick<ResolvedConfig, 'console'>,
  info: Pick<AuthInfo, 'clientId' | 'subject'>,
): Promise<RoleHolder> {
  const { clientId, subject } = info;
  if (clientId !== undefined && subject === clientId) {
    const app = await store.applications.get(clientId);
    if (app?.type === 'MachineToMachine') return { applicationId: app.id };
  } else if (subject !== undefined && (await isConsoleUser(store, config, info))) {
    return { userId: subject };
  }
  throw new AccessDeniedError('The Management API accepts machine-to-machine application tokens only');
}
