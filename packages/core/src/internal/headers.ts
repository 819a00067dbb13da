/**
 * Reading Node's `rawHeaders`: the only place a repeated header line is still visible (Node keeps the
 * first `Authorization` and joins repeated unknown headers such as `DPoP` with commas in `headers`).
 *
 * @module
 */

/** How many header lines named `name` (lower-case) `raw` holds; 0 without raw headers. */
export function countHeaderLines(raw: readonly string[] | undefined, name: string): number {
  if (raw === undefined) return 0;
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const line = raw[i]!;
    if (line.length === name.length && line.toLowerCase() === name) n++;
  }
  return n;
}
