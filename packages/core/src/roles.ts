/**
 * Roles a token carries (a `roles` claim: a JSON array of role names, as the Gatehouse issuer writes
 * for resources that opt in) and the check of required roles. Like scopes, roles are compared as
 * whole, case-sensitive strings: `Admin` or `admin2` never satisfy `admin`.
 *
 * @module
 */
import { frozenList, isMarked } from './internal/frozen-list.js';
import { hasScopes, type ScopeMode } from './scopes.js';

/** How several required roles combine: `all` (every role) or `any` (at least one). */
export type RoleMode = ScopeMode;

/** The role list of a token without roles: one shared frozen array, so no allocation per token. */
export const NO_ROLES: readonly string[] = frozenList([]);

/** Longest role list a token may carry before it is refused (a bound on per-request work). */
export const MAX_TOKEN_ROLES = 256;

/**
 * The `roles` claim as a frozen list: `[]` when absent, `null` when it is not an array of non-empty
 * strings of at most {@link MAX_TOKEN_ROLES} entries (the token is then invalid, catalogue A61).
 *
 * @example
 * ```ts
 * parseRoles({ roles: ['admin', 'auditor'] }); // ['admin', 'auditor']
 * parseRoles({ roles: 'admin' }); // null: a string is not a role list
 * ```
 */
export function parseRoles(claims: Readonly<Record<string, unknown>>): readonly string[] | null {
  const { roles } = claims;
  if (roles === undefined) return NO_ROLES;
  if (!Array.isArray(roles) || roles.length > MAX_TOKEN_ROLES) return null;
  if (!roles.every((role) => typeof role === 'string' && role.length > 0)) return null;
  return frozenList([...roles]);
}

/**
 * Whether `granted` satisfies `required` (`all`: every role; `any`: at least one). The same
 * whole-string comparison as {@link hasScopes}.
 *
 * @example
 * ```ts
 * hasRoles(['auditor'], ['admin', 'auditor'], 'any'); // true
 * ```
 */
export function hasRoles(
  granted: readonly string[],
  required: readonly string[],
  mode: RoleMode = 'all',
): boolean {
  return hasScopes(granted, required, mode);
}

/** Marks the lists returned by {@link toRoleList}: frozen and valid. */
const VALID_ROLES = Symbol('gatehouse.valid-roles');

/**
 * Normalize a role requirement: one role name or a list of them. Throws a `TypeError` for anything
 * else — and for a requirement naming no role (`''`, `[]`), so a typo never turns into "no role
 * required". Unlike scopes, a string is one role (role names may hold spaces).
 *
 * @example
 * ```ts
 * toRoleList('admin'); // ['admin']
 * toRoleList(['admin', 'auditor']); // ['admin', 'auditor']
 * toRoleList([]); // TypeError
 * ```
 */
export function toRoleList(roles: string | readonly string[]): readonly string[] {
  // Lists this function produced are frozen and already checked: route requirements are validated once.
  if (isMarked(roles, VALID_ROLES)) return roles;
  const list: readonly unknown[] | undefined =
    typeof roles === 'string' ? [roles] : Array.isArray(roles) ? roles : undefined;
  if (list === undefined || !list.every((role) => typeof role === 'string' && role.length > 0))
    throw new TypeError('roles must be a role name or an array of non-empty role names');
  if (list.length === 0) throw new TypeError('a role requirement must name at least one role (it was empty)');
  return frozenList([...(list as string[])], VALID_ROLES);
}
