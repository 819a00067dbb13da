/**
 * Scopes granted by a token and the check of required scopes. Scope values are compared as whole,
 * case-sensitive strings (RFC 6749 §3.3): `read:usersX` or `READ:users` never satisfy `read:users`.
 *
 * @module
 */
import { frozenList, isMarked, searchable } from './internal/frozen-list.js';

/**
 * Granted scopes: the space-separated `scope` string (RFC 9068 §2.2.3), else an `scp` array of strings.
 * Any other shape (an array or number in `scope`) grants nothing.
 *
 * @example
 * ```ts
 * parseScopes({ scope: 'read:orders write:orders' }); // ['read:orders', 'write:orders']
 * ```
 */
export function parseScopes(claims: Readonly<Record<string, unknown>>): readonly string[] {
  const { scope, scp } = claims;
  if (typeof scope === 'string') {
    // One-entry memo: a client's tokens carry the same scope string, and the list is frozen.
    if (scope === lastScope) return lastScopes;
    const list = scope.split(' ');
    lastScopes = frozenList(list.includes('') ? list.filter((s) => s.length > 0) : list);
    lastScope = scope;
    return lastScopes;
  }
  if (scope === undefined && Array.isArray(scp) && scp.every((s) => typeof s === 'string')) {
    return frozenList(scp.filter((s: string) => s.length > 0 && !/\s/.test(s)));
  }
  return NO_SCOPES;
}

/** The scope list of a token granting none: one shared list. */
const NO_SCOPES = frozenList([]);
/** Marks the lists returned by {@link toScopeList}: frozen and valid. */
const VALID_SCOPES = Symbol('gatehouse.valid-scopes');
let lastScope: string | undefined;
let lastScopes: readonly string[] = NO_SCOPES;

/** How several required scopes combine. */
export type ScopeMode = 'all' | 'any';

/**
 * Whether `granted` satisfies `required` (`all`: every scope; `any`: at least one). An empty
 * `required` list is always satisfied.
 *
 * @example
 * ```ts
 * hasScopes(['read:orders'], ['read:orders', 'write:orders'], 'any'); // true
 * ```
 */
export function hasScopes(
  granted: readonly string[],
  required: readonly string[],
  mode: ScopeMode = 'all',
): boolean {
  // Plain loops over the lists' unfrozen copies (internal/frozen-list.ts): this runs on every request.
  const have = searchable(granted);
  const need = searchable(required);
  if (mode === 'any') {
    for (let i = 0; i < need.length; i++) if (have.includes(need[i] as string)) return true;
    return need.length === 0;
  }
  for (let i = 0; i < need.length; i++) if (!have.includes(need[i] as string)) return false;
  return true;
}

/**
 * Normalize a scope requirement given as a space-separated string or a list. Throws a `TypeError` for
 * anything else — and for a requirement naming no scope at all (`''`, `'  '`, `[]`), so a typo can never
 * turn into "no scope required". `undefined` means no requirement.
 *
 * @example
 * ```ts
 * toScopeList('read:orders write:orders'); // ['read:orders', 'write:orders']
 * toScopeList(''); // TypeError: a scope requirement must name at least one scope
 * ```
 */
export function toScopeList(scopes: string | readonly string[] | undefined): readonly string[] {
  if (scopes === undefined) return [];
  // Lists this function produced are frozen and already checked: route requirements are validated once.
  if (isMarked(scopes, VALID_SCOPES)) return scopes;
  const list: readonly unknown[] | undefined =
    typeof scopes === 'string' ? scopes.split(' ') : Array.isArray(scopes) ? scopes : undefined;
  if (list === undefined || !list.every((s) => typeof s === 'string' && !/[\s]/.test(s))) {
    throw new TypeError('scopes must be a space-separated string or an array of scope strings');
  }
  const out = (list as string[]).filter((s) => s.length > 0);
  if (out.length === 0)
    throw new TypeError('a scope requirement must name at least one scope (it was empty)');
  return frozenList(out, VALID_SCOPES);
}
