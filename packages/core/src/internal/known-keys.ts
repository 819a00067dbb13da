/**
 * Refusing option keys nobody reads: a typo (`jwksUrl` for `jwksUri`) must fail at construction with
 * the closest known name, not be ignored silently.
 *
 * @module
 */

/**
 * Edit distance between `a` and `b`, ignoring case: the fewest insertions, deletions, substitutions
 * and transpositions of two neighbouring characters (optimal string alignment) that turn one into the
 * other, so `prot` is one edit from `port`.
 */
export function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  // Three rows: the one before the previous (for swaps), the previous, the current.
  let before: number[] = [];
  let previous = Array.from({ length: t.length + 1 }, (_, j) => j);
  for (let i = 1; i <= s.length; i++) {
    const current = [i];
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let best = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1])
        best = Math.min(best, before[j - 2]! + 1);
      current.push(best);
    }
    before = previous;
    previous = current;
  }
  return previous[t.length]!;
}

/**
 * The known name closest to `name`, when it is close enough to be a likely typo (at most a third of
 * its length in edits, and at least 2 allowed); `undefined` otherwise. Ties go to the first in
 * `known`. Exported from the package as `closestName`, for the other Gatehouse packages' "did you
 * mean" hints.
 *
 * @example
 * ```ts
 * import { closestName } from '@gatehouse/core';
 *
 * closestName('jwksUrl', ['issuer', 'jwksUri']); // 'jwksUri'
 * closestName('colour', ['issuer', 'jwksUri']); // undefined
 * ```
 */
export function closest(name: string, known: Iterable<string>): string | undefined {
  const limit = Math.max(2, Math.floor(name.length / 3));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of known) {
    const distance = editDistance(name, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
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
