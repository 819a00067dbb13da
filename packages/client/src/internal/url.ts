/**
 * URL helpers: loopback detection and the plain-HTTP policy behind the `allowInsecureRequests` option.
 *
 * @module
 */

/** `localhost`, `127.0.0.0/8` and `[::1]`: hosts that never leave the machine. */
const LOOPBACK = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** How plain `http:` is treated: never, only for loopback hosts, or for every host. */
export type InsecurePolicy = 'never' | 'loopback' | 'always';

/**
 * Whether `url` names a loopback host.
 *
 * @example
 * ```ts
 * isLoopback(new URL('http://127.0.0.1:3001/oidc')); // true
 * ```
 */
export function isLoopback(url: URL): boolean {
  return LOOPBACK.test(url.hostname);
}

/**
 * Whether a request to `url` needs oauth4webapi's `allowInsecureRequests` under `policy`: only plain
 * `http:` does, and only where the policy lets it through.
 *
 * @example
 * ```ts
 * insecureAllowed(new URL('http://127.0.0.1/token'), 'loopback'); // true
 * insecureAllowed(new URL('http://id.example.com/token'), 'loopback'); // false
 * ```
 */
export function insecureAllowed(url: URL, policy: InsecurePolicy): boolean {
  if (url.protocol !== 'http:') return false;
  return policy === 'always' || (policy === 'loopback' && isLoopback(url));
}

/**
 * `new URL(value)`, or `null` when `value` is not an absolute URL (like `URL.parse`, which older
 * browsers lack).
 *
 * @example
 * ```ts
 * parseUrl('https://id.example.com/oidc')?.host; // 'id.example.com'
 * parseUrl('/callback'); // null
 * ```
 */
export function parseUrl(value: string): URL | null {
  try {
    return new URL(value);
  } catch {
    return null;
  }
}
