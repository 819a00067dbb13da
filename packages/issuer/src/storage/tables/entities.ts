/**
 * Users, applications, resources and roles: the entity stores of configuration. Part of the `Store`
 * interface (`../store.ts`); see there for the rules every driver follows.
 *
 * @module
 */
import type {
  ApplicationPatch,
  ApplicationRecord,
  NewApplication,
  NewResource,
  NewRole,
  NewScope,
  NewUser,
  Page,
  PageRequest,
  ResourcePatch,
  ResourceRecord,
  RoleHolder,
  RolePatch,
  RoleRecord,
  RoleScope,
  ScopeRecord,
  UserPatch,
  UserRecord,
} from '../records.js';

/**
 * What every entity store (users, applications, resources, roles) has: create, get by id, list a page
 * (oldest first), update the fields a patch names (`undefined` when there is no such row), delete.
 *
 * @example
 * ```ts
 * async function rename(store: EntityStore<RoleRecord, NewRole, RolePatch>, id: string, name: string) {
 *   return store.update(id, { name }, Math.floor(Date.now() / 1000));
 * }
 * ```
 */
export interface EntityStore<T, New, Patch> {
  create(record: New, now: number): Promise<T>;
  get(id: string): Promise<T | undefined>;
  list(page: PageRequest): Promise<Page<T>>;
  update(id: string, patch: Patch, now: number): Promise<T | undefined>;
  delete(id: string): Promise<boolean>;
}

/**
 * Users (their role assignments are the {@link RoleStore}'s).
 *
 * @example
 * ```ts
 * const user = await store.users.findByLogin('alice@example.com');
 * ```
 */
export interface UserStore extends EntityStore<UserRecord, NewUser, UserPatch> {
  /** Find by username or email, case-insensitively. */
  findByLogin(identifier: string): Promise<UserRecord | undefined>;
  /** A page of the users whose username or email contains `text` (case-insensitively), or whose id is `text`. */
  search(text: string, page: PageRequest): Promise<Page<UserRecord>>;
}

/**
 * Applications (OAuth clients).
 *
 * @example
 * ```ts
 * await store.applications.update(clientId, { tokenExchangeEnabled: true }, now);
 * ```
 */
export interface ApplicationStore extends EntityStore<ApplicationRecord, NewApplication, ApplicationPatch> {
  /** The oldest application of that name. */
  findByName(name: string): Promise<ApplicationRecord | undefined>;
}

/**
 * API resources and their scopes.
 *
 * @example
 * ```ts
 * const orders = await store.resources.findByIndicator('https://orders.example.com');
 * ```
 */
export interface ResourceStore extends EntityStore<ResourceRecord, NewResource, ResourcePatch> {
  findByIndicator(indicator: string): Promise<ResourceRecord | undefined>;
  createScope(scope: NewScope, now: number): Promise<ScopeRecord>;
  getScope(resourceId: string, scopeId: string): Promise<ScopeRecord | undefined>;
  /** A scope by id alone. */
  getScopeById(scopeId: string): Promise<ScopeRecord | undefined>;
  findScope(resourceId: string, name: string): Promise<ScopeRecord | undefined>;
  listScopes(resourceId: string): Promise<readonly ScopeRecord[]>;
  updateScope(resourceId: string, scopeId: string, description: string): Promise<ScopeRecord | undefined>;
  deleteScope(resourceId: string, scopeId: string): Promise<boolean>;
}

/**
 * Roles, their scopes, and who holds them.
 *
 * @example
 * ```ts
 * await store.roles.grantedScopes({ applicationId: 'worker' }, 'https://orders.example.com');
 * ```
 */
export interface RoleStore extends EntityStore<RoleRecord, NewRole, RolePatch> {
  findByName(name: string): Promise<RoleRecord | undefined>;
  /** Add scopes (by id) to a role; already present ones are kept. Unknown ids are ignored. */
  addScopes(roleId: string, scopeIds: readonly string[]): Promise<void>;
  removeScope(roleId: string, scopeId: string): Promise<boolean>;
  listScopes(roleId: string): Promise<readonly RoleScope[]>;
  /** Assign roles to a user or an application; already held ones are kept. */
  assign(holder: RoleHolder, roleIds: readonly string[]): Promise<void>;
  unassign(holder: RoleHolder, roleId: string): Promise<boolean>;
  listFor(holder: RoleHolder): Promise<readonly RoleRecord[]>;
  /** Names of the scopes of resource `indicator` that the holder's roles grant. */
  grantedScopes(holder: RoleHolder, indicator: string): Promise<readonly string[]>;
  /** Names of the holder's roles that grant a scope of resource `indicator` (its `roles` claim), sorted. */
  rolesFor(holder: RoleHolder, indicator: string): Promise<readonly string[]>;
  /** Every scope the holder's roles grant, of every resource, each once (by resource, then name). */
  scopesHeld(holder: RoleHolder): Promise<readonly ScopeRecord[]>;
}
