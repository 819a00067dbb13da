/**
 * "Did you mean …?" for mistyped names: the closest known name by edit distance (optimal string
 * alignment: insertions, deletions, substitutions and swaps of neighbours), case differences counting
 * as nothing, so `baseURL` finds `baseUrl` and `gracePeriode` finds `gracePeriod`.
 *
 * @module
 */

/**
 * Edit distance between `a` and `b`, ignoring case: the fewest insertions, deletions, substitutions
 * and transpositions of two neighbouring characters that turn one into the other.
 *
 * @example
 * ```ts
 * editDistance('baseURL', 'baseUrl'); // 0
 * editDistance('prot', 'port'); // 1 (a swap)
 * ```
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
 * its length in edits, and at least 2 allowed); `undefined` otherwise. Ties go to the first in `known`.
 *
 * @example
 * ```ts
 * closest('baseURL', ['baseUrl', 'port', 'host']); // 'baseUrl'
 * closest('colour', ['baseUrl', 'port', 'host']); // undefined
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
