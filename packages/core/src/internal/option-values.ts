/**
 * Validation of the value types options are made of (non-empty string lists, durations, URLs,
 * algorithm lists), shared by options.ts and issuer-options.ts. Each failure is a `TypeError` naming
 * the option (see fail.ts).
 *
 * @module
 */
import { SUPPORTED_ALGORITHMS } from '../defaults.js';
import type { Algorithm } from '../types.js';
import { fail } from './fail.js';

/**
 * A non-empty string or array of non-empty strings, as a deduplicated array.
 *
 * @example
 * ```ts
 * stringList('https://api.example.com', 'audience'); // ['https://api.example.com']
 * ```
 */
export function stringList(value: unknown, option: string): string[] {
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || list.length === 0)
    return fail(option, 'must be a non-empty string or array of strings');
  for (const item of list)
    if (typeof item !== 'string' || item.length === 0) fail(option, 'must contain non-empty strings only');
  return [...new Set(list as string[])];
}

/**
 * A finite number of at least `min`, or `fallback` when `undefined`.
 *
 * @example
 * ```ts
 * duration(undefined, 5_000, 'jwks.timeout', 1); // 5000
 * ```
 */
export function duration(value: unknown, fallback: number, option: string, min = 0): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
    return fail(option, `must be a finite number >= ${min}`);
  }
  return value;
}

const LOOPBACK = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/**
 * Whether `url` may be fetched: `https:`, or `http:` on a loopback host (or everywhere when allowed).
 *
 * @example
 * ```ts
 * isAllowedUrl(new URL('http://127.0.0.1:3000/jwks'), false); // true
 * ```
 */
export function isAllowedUrl(url: URL, allowInsecureHttp: boolean): boolean {
  if (url.protocol === 'https:') return true;
  return url.protocol === 'http:' && (allowInsecureHttp || LOOPBACK.test(url.hostname));
}

/**
 * An absolute URL that {@link isAllowedUrl} accepts.
 *
 * @example
 * ```ts
 * parseUrl('https://id.example.com/jwks', 'jwksUri', false); // URL
 * ```
 */
export function parseUrl(value: unknown, option: string, allowInsecureHttp: boolean): URL {
  if (typeof value === 'string' && /^[a-z0-9.-]+(?::\d+)?(?:\/|$)/i.test(value)) {
    // `localhost:3001/oidc` parses as a URL of scheme "localhost:": say what is missing, not "https".
    const meant = `${/^(?:localhost|127\.|\[::1\])/i.test(value) ? 'http' : 'https'}://${value.replace(/^\/+/, '')}`;
    fail(option, `is missing its scheme (http:// or https://): write ${JSON.stringify(meant.slice(0, 200))}`);
  }
  let url: URL;
  try {
    url = new URL(value instanceof URL ? value.href : (value as string));
  } catch {
    return fail(option, 'must be an absolute URL');
  }
  if (!isAllowedUrl(url, allowInsecureHttp)) {
    fail(
      option,
      'must use https: (http: is only allowed for loopback hosts unless "allowInsecureHttp" is set)',
    );
  }
  return url;
}

/**
 * A list of supported algorithms, or `fallback` when `undefined`.
 *
 * @example
 * ```ts
 * algorithmList(['ES256'], SUPPORTED_ALGORITHMS, 'algorithms'); // ['ES256']
 * ```
 */
export function algorithmList(value: unknown, fallback: readonly Algorithm[], option: string): Algorithm[] {
  const algorithms = value === undefined ? [...fallback] : stringList(value, option);
  for (const alg of algorithms) {
    if (!(SUPPORTED_ALGORITHMS as readonly string[]).includes(alg)) {
      fail(
        option,
        `contains "${alg}", which is not a supported asymmetric algorithm (${SUPPORTED_ALGORITHMS.join(', ')})`,
      );
    }
  }
  return algorithms as Algorithm[];
}
