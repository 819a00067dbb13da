/**
 * A `WWW-Authenticate` parser (RFC 9110 §11.6.1): challenges as a lower-cased scheme and its
 * auth-params (names lower-cased, quoted-string values unescaped; a token68 is skipped).
 *
 * Written here because oauth4webapi parses challenges only inside its own request functions and does
 * not export its parser, and `stepUpChallenge()` must read any `Response` (also one fetched without
 * `client.fetch()`). Parsing stops at the first malformed part, keeping what came before it.
 *
 * @module
 */

/** One challenge. */
export interface Challenge {
  /** The auth-scheme, lower-cased (`bearer`, `dpop`). */
  readonly scheme: string;
  /** Auth-params by lower-cased name; the first of a repeated name wins. */
  readonly params: Readonly<Record<string, string>>;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+/;
const TOKEN68 = /^[A-Za-z0-9._~+/-]+=*(?=\s*(?:,|$))/;
const QUOTED = /^"((?:[^"\\]|\\.)*)"/;

/**
 * The challenges of a `WWW-Authenticate` value.
 *
 * @example
 * ```ts
 * parseChallenges('Bearer realm="api", error="invalid_token", DPoP algs="ES256"');
 * // [{ scheme: 'bearer', params: { realm: 'api', error: 'invalid_token' } }, { scheme: 'dpop', params: { algs: 'ES256' } }]
 * ```
 */
export function parseChallenges(header: string): Challenge[] {
  const out: { scheme: string; params: Record<string, string> }[] = [];
  let current: { scheme: string; params: Record<string, string> } | undefined;
  let rest = header;
  for (;;) {
    rest = rest.replace(/^[\s,]+/, '');
    const name = TOKEN.exec(rest)?.[0];
    if (name === undefined) return out;
    const afterName = rest.slice(name.length);
    const equals = /^\s*=\s*/.exec(afterName);
    if (current !== undefined && equals !== null && !afterName.trimStart().startsWith('==')) {
      // An auth-param of the current challenge: token or quoted-string.
      const value = afterName.slice(equals[0].length);
      const quoted = QUOTED.exec(value);
      const plain = quoted === null ? TOKEN.exec(value) : null;
      if (quoted === null && plain === null) return out;
      const key = name.toLowerCase();
      if (!(key in current.params))
        current.params[key] = quoted === null ? plain![0] : quoted[1]!.replace(/\\(.)/g, '$1');
      rest = value.slice((quoted ?? plain)![0].length);
      continue;
    }
    // A new challenge: nothing, auth-params, or a token68 (never read here).
    current = { scheme: name.toLowerCase(), params: Object.create(null) as Record<string, string> };
    out.push(current);
    rest = afterName;
    if (rest === '' || /^\s*,/.test(rest)) continue;
    if (!/^\s/.test(rest)) return out;
    rest = rest.trimStart();
    const token68 = TOKEN68.exec(rest);
    if (token68 !== null) rest = rest.slice(token68[0].length);
  }
}
