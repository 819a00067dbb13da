/**
 * Turning a failed metadata or key-set request into a {@link KeySetError} a developer can act on: what
 * failed, where, what was found instead, and what to check. Configuration problems are told apart from
 * outages, so a silent 503 becomes a one-line explanation in the logs and in `warmUp()`.
 *
 * @module
 */
import { KeySetError } from '../errors.js';
import { FetchFailure, type FetchFailureCode } from './fetch.js';

const OUTAGES: ReadonlySet<FetchFailureCode> = new Set(['timeout', 'connection_failed', 'server_error']);

const HINTS: Readonly<Record<FetchFailureCode, string>> = Object.freeze({
  issuer_mismatch:
    'The "issuer" option must be exactly the issuer the metadata names, which is also the tokens\' "iss": same scheme, host (localhost is not 127.0.0.1), port, path and trailing slash.',
  metadata_not_found: 'Check the "issuer" option (is a path such as /oidc missing?), or set "jwksUri".',
  metadata_invalid: 'The issuer\'s metadata is not usable: set "jwksUri" to its JWKS URL.',
  jwks_uri_invalid: 'The issuer\'s metadata names an unusable JWKS URL: set "jwksUri".',
  jwks_uri_origin:
    'Keys found by discovery must be on the issuer\'s own origin, so a forged or poisoned metadata document cannot redirect key fetching. If the issuer really publishes its keys elsewhere, list that origin in "jwks.allowedOrigins", or set "jwksUri".',
  http_error:
    'Check the URL ("jwksUri", or the issuer\'s metadata): it must serve the JWKS without authentication.',
  not_json: 'The URL does not serve JSON: check "jwksUri".',
  jwks_invalid: 'The URL does not serve a JWKS: check "jwksUri".',
  no_usable_key:
    'Every key of the JWKS is one Gatehouse never uses (symmetric, for encryption, RSA under 2048 bits, or an unsupported type).',
  redirect: 'Redirects are not followed: point "jwksUri" (or "issuer") at the final URL.',
  too_large: 'The response is too large for a JWKS: check the URL, or raise "jwks.maxResponseBytes".',
  insecure_url: 'Use https:, or set "allowInsecureHttp" for a test issuer (http: works on loopback only).',
  tls: "This machine does not trust the issuer's certificate: for a private CA, set NODE_EXTRA_CA_CERTS.",
  host_not_found: 'Check the host name in "issuer" or "jwksUri".',
  timeout: 'Requests are answered 503 until the keys can be fetched; retries back off.',
  connection_failed: 'Requests are answered 503 until the keys can be fetched; retries back off.',
  server_error: 'Requests are answered 503 until the keys can be fetched; retries back off.',
});

/**
 * The explanation of `error` (a {@link FetchFailure}, or anything a custom `fetch` threw) for `issuer`.
 *
 * @example
 * ```ts
 * explain(new FetchFailure('issuer_mismatch', 'the metadata names "http://127.0.0.1:3001/oidc"', url), issuer).message;
 * // 'cannot get the signing keys of issuer "http://localhost:3001/oidc": the metadata names … (url). The "issuer" option must …'
 * ```
 */
export function explain(error: unknown, issuer: string): KeySetError {
  if (error instanceof KeySetError) return error;
  const failure =
    error instanceof FetchFailure
      ? error
      : new FetchFailure('connection_failed', 'the request failed unexpectedly');
  const where = failure.url === undefined || failure.message.includes(failure.url) ? '' : ` (${failure.url})`;
  const message = `cannot get the signing keys of issuer "${issuer}": ${failure.message}${where}. ${HINTS[failure.code]}`;
  return new KeySetError(
    failure.code,
    OUTAGES.has(failure.code) ? 'outage' : 'configuration',
    issuer,
    failure.url,
    message,
  );
}
