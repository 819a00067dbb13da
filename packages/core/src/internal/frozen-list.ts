/**
 * Frozen string lists that stay fast to search. Both engines move a frozen array's elements to a
 * slower representation: `includes` on a frozen three-entry list takes ≈100 ns on Bun (JSC) and
 * ≈37 ns on Node (V8), against ≈9 ns unfrozen — on every request, for the token's scopes and the
 * route's requirement. A list made by {@link frozenList} carries an unfrozen copy of its entries under
 * a module-private symbol (non-enumerable: spreading, `JSON.stringify` and `Object.keys` never see it),
 * and the scope and role checks search that copy. Lists made elsewhere are searched as they are.
 * The copy is not frozen: code that digs it out by reflection (`Object.getOwnPropertySymbols`) could
 * change what the list is searched for. Core keeps the symbol private and trusts the app's own code; a
 * `WeakMap` would hide the copy entirely, at the cost of a lookup per list per request.
 *
 * @module
 */

/** Where a list made here keeps the copy it is searched through. */
const ENTRIES = Symbol('gatehouse.entries');

/** A list with the properties {@link frozenList} may have set. */
type Marked = { readonly [ENTRIES]?: readonly string[] } & { readonly [mark: symbol]: unknown };

/**
 * Freeze `entries` (which the caller hands over and must not keep) with a searchable copy, and with
 * `mark` set to `true` when given (a module's own "validated" marker, cheaper to test than a `WeakSet`).
 *
 * @example
 * ```ts
 * const scopes = frozenList('read:orders write:orders'.split(' '));
 * searchable(scopes).includes('read:orders'); // true, on the unfrozen copy
 * ```
 */
export function frozenList(entries: string[], mark?: symbol): readonly string[] {
  Object.defineProperty(entries, ENTRIES, { value: entries.slice() });
  if (mark !== undefined) Object.defineProperty(entries, mark, { value: true });
  return Object.freeze(entries);
}

/**
 * The unfrozen copy of a list from {@link frozenList}, or `list` itself.
 *
 * @example
 * ```ts
 * for (const scope of searchable(required)) if (!searchable(granted).includes(scope)) return false;
 * ```
 */
export function searchable(list: readonly string[]): readonly string[] {
  return (list as unknown as Marked)[ENTRIES] ?? list;
}

/**
 * Whether `value` is a list {@link frozenList} made with `mark`.
 *
 * @example
 * ```ts
 * if (isMarked(scopes, VALID_SCOPES)) return scopes; // validated when it was made
 * ```
 */
export function isMarked(value: unknown, mark: symbol): value is readonly string[] {
  return Array.isArray(value) && (value as unknown as Marked)[mark] === true;
}
