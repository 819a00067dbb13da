/**
 * The `jwks` verifier option (the remote key sets' cache, fetch limits and allowed origins), merged
 * with {@link DEFAULTS} and validated when the verifier is created. A bad value throws a `TypeError`
 * naming the option.
 *
 * @module
 */

import { DEFAULTS } from './defaults.js';
import { fail } from './internal/fail.js';
import { rejectUnknownKeys } from './internal/known-keys.js';
import { duration, isAllowedUrl } from './internal/option-values.js';

/**
 * Remote JWKS cache options. All durations in milliseconds.
 *
 * @example
 * ```ts
 * const jwks: JwksOptions = { cacheMaxAge: 300_000, allowedOrigins: ['https://keys.example.com'] };
 * createVerifier({ issuer, audience, jwks });
 * ```
 */
export interface JwksOptions {
  /** Default 600000 (10 min). */
  cacheMaxAge?: number;
  /** Default 30000 (30 s). */
  cooldown?: number;
  /** Default 5000 (5 s). */
  timeout?: number;
  /** Default 1800000 (30 min). `0` disables stale keys during outages. */
  staleIfError?: number;
  /** Default 1000. */
  backoffInitial?: number;
  /** Default 30000. */
  backoffMax?: number;
  /** Default 262144 (256 KiB). */
  maxResponseBytes?: number;
  /** Default 100. */
  maxKeys?: number;
  /**
   * Origins (`https://keys.example.com`) other than the issuer's own where a `jwks_uri` found by
   * discovery may be. Default none: discovered keys must live on the issuer's origin. Not needed with
   * an explicit `jwksUri`.
   */
  allowedOrigins?: readonly string[];
}

/** `jwks.allowedOrigins`: origins only (no path, query or credentials), normalised as `URL.origin`. */
function allowedOrigins(value: unknown, allowInsecureHttp: boolean): readonly string[] {
  if (value === undefined) return DEFAULTS.jwks.allowedOrigins;
  if (!Array.isArray(value)) return fail('jwks.allowedOrigins', 'must be an array of origins');
  const origins = value.map((item: unknown) => {
    const url = typeof item === 'string' && URL.canParse(item) ? new URL(item) : null;
    if (
      url === null ||
      url.origin === 'null' ||
      url.href !== `${url.origin}/` ||
      !isAllowedUrl(url, allowInsecureHttp)
    ) {
      return fail(
        'jwks.allowedOrigins',
        `must contain https: origins such as "https://keys.example.com" (no path, query or credentials; http: only for loopback hosts), not ${JSON.stringify(String(item)).slice(0, 100)}`,
      );
    }
    return url.origin;
  });
  return Object.freeze([...new Set(origins)]);
}

/**
 * `jwks` merged with {@link DEFAULTS}.jwks and validated (`allowInsecureHttp`: whether http: origins
 * of loopback hosts are allowed).
 *
 * @example
 * ```ts
 * resolveJwksOptions({ timeout: 2000 }, false).timeout; // 2000
 * ```
 */
export function resolveJwksOptions(
  value: JwksOptions | undefined,
  allowInsecureHttp: boolean,
): Readonly<Required<JwksOptions>> {
  const j = value ?? {};
  if (j === null || typeof j !== 'object') fail('jwks', 'must be an object');
  rejectUnknownKeys(j, Object.keys(DEFAULTS.jwks), 'jwks.');
  const d = DEFAULTS.jwks;
  return Object.freeze({
    cacheMaxAge: duration(j.cacheMaxAge, d.cacheMaxAge, 'jwks.cacheMaxAge'),
    cooldown: duration(j.cooldown, d.cooldown, 'jwks.cooldown'),
    timeout: duration(j.timeout, d.timeout, 'jwks.timeout', 1),
    staleIfError: duration(j.staleIfError, d.staleIfError, 'jwks.staleIfError'),
    backoffInitial: duration(j.backoffInitial, d.backoffInitial, 'jwks.backoffInitial'),
    backoffMax: duration(j.backoffMax, d.backoffMax, 'jwks.backoffMax'),
    maxResponseBytes: duration(j.maxResponseBytes, d.maxResponseBytes, 'jwks.maxResponseBytes', 1),
    maxKeys: duration(j.maxKeys, d.maxKeys, 'jwks.maxKeys', 1),
    allowedOrigins: allowedOrigins(j.allowedOrigins, allowInsecureHttp),
  });
}
