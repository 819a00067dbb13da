/**
 * Values that come from outside (a remote document, a token's claims) made safe to put in a log line:
 * printable ASCII only (anything else, line breaks and escape sequences included, becomes `?`), cut
 * to a bounded length. Written here rather than taken from a library: it is one regular expression.
 *
 * @module
 */

/**
 * `value` as printable ASCII, at most `max` characters (a longer value is cut and ends with `…`).
 *
 * @example
 * ```ts
 * printable('https://api.example.com/\u001b[31m'); // 'https://api.example.com/?[31m'
 * printable('x'.repeat(300)); // 200 × 'x' then '…'
 * ```
 */
export function printable(value: string, max = 200): string {
  const clean = value.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}
