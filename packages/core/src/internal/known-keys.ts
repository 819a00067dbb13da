/**
 * Refusing option keys nobody reads: a typo (`jwksUrl` for `jwksUri`) must fail at construction with
 * the closest known name, not be ignored silently.
 *
 * @module
 */

/** Levenshtein distance, small inputs only (option names). */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1]!.toLowerCase() === b[j - 1]!.toLowerCase() ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** The known name closest to `name`, when it is close enough to be a plausible typo. */
export function closest(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of known) {
    const d = distance(name, candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return bestDistance <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

/**
 * Throw a `TypeError` naming the first own key of `options` that is not in `known`, with the closest
 * known one when there is a plausible match. Exported from the package as `rejectUnknownOptions`, for
 * the other Gatehouse packages (and anyone wrapping a verifier) to refuse typos the same way.
 *
 * @param prefix - where the object sits, e.g. `dpop.` for the keys of the `dpop` option.
 *
 * @example
 * ```ts
 * import { rejectUnknownOptions } from '@gatehouse/core';
 *
 * rejectUnknownOptions({ expiresIn: 60, notBfore: 0 }, ['expiresIn', 'notBefore']);
 * // TypeError: unknown option "notBfore" (did you mean "notBefore"?)
 * ```
 */
export function rejectUnknownKeys(options: object, known: readonly string[], prefix = ''): void {
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const match = closest(key, known);
    throw new TypeError(
      `unknown option "${prefix}${key}"${match === undefined ? '' : ` (did you mean "${prefix}${match}"?)`}`,
    );
  }
}
