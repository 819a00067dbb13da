/**
 * "Did you mean …?" for mistyped names: the closest known name as `@gatehouse/core` finds it for its
 * own options (edit distance with swaps of neighbours, case counting as nothing), so `baseURL` finds
 * `baseUrl` and `gracePeriode` finds `gracePeriod` — one rule for every Gatehouse package.
 *
 * @module
 */
import { closestName } from '@gatehouse/core';

/**
 * The known name closest to `name` when it is a likely typo, else `undefined` (core's `closestName`).
 *
 * @example
 * ```ts
 * closest('baseURL', ['baseUrl', 'port', 'host']); // 'baseUrl'
 * ```
 */
export const closest: (name: string, known: Iterable<string>) => string | undefined = closestName;

/**
 * `" — did you mean "x"?"` for {@link closest}, or `""` when nothing is close.
 *
 * @example
 * ```ts
 * `"baseURL" is not a known option${didYouMean('baseURL', ['baseUrl'])}`;
 * // '"baseURL" is not a known option — did you mean "baseUrl"?'
 * ```
 */
export function didYouMean(name: string, known: Iterable<string>, format = (s: string) => s): string {
  const match = closest(name, known);
  return match === undefined ? '' : ` — did you mean "${format(match)}"?`;
}
