/**
 * Refusing option keys nobody reads: a typo (`dpopp` for `dpop`) fails at construction with the
 * closest known name instead of being ignored. Like `@gatehouse/core`'s `rejectUnknownOptions` (which also counts swapped neighbours),
 * kept here on purpose: importing it would put @gatehouse/core into every browser bundle of the client
 * (measured: the self-contained `dist/browser` build grows from 48 KB to 57 KB for these 40 lines).
 *
 * @module
 */

/** Levenshtein distance, case-insensitive (option names are short). */
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

/**
 * The known name closest to `name`, when close enough to be a plausible typo.
 *
 * @example
 * ```ts
 * closest('algorithim', ['algorithm', 'keyPair']); // 'algorithm'
 * ```
 */
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
 * known one when there is a plausible match.
 *
 * @example
 * ```ts
 * rejectUnknownKeys({ algorthm: 'ES256' }, ['algorithm', 'keyPair'], 'dpop.');
 * // TypeError: unknown option "dpop.algorthm" (did you mean "dpop.algorithm"?)
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
