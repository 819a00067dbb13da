/**
 * Finding the JWKS URL from the issuer's metadata: OpenID Connect Discovery
 * (`{issuer}/.well-known/openid-configuration`), then the RFC 8414 form
 * (`{origin}/.well-known/oauth-authorization-server{path}`). The document's `issuer` must equal the
 * configured issuer exactly, and its `jwks_uri` must be an allowed URL.
 *
 * @module
 */
import { FetchFailure, type FetchLimits, fetchJson } from './internal/fetch.js';
import { isAllowedUrl } from './options.js';

/** The metadata URLs tried for `issuer`, in order. */
export function metadataUrls(issuer: string): URL[] {
  const base = new URL(issuer);
  const path = base.pathname.replace(/\/$/, '');
  const openid = new URL(`${base.origin}${path}/.well-known/openid-configuration`);
  const oauth = new URL(`${base.origin}/.well-known/oauth-authorization-server${path}`);
  return [openid, oauth];
}

/**
 * Fetch the issuer's metadata and return its `jwks_uri`. Throws {@link FetchFailure} when no document
 * can be had, or the document does not belong to `issuer`.
 *
 * @example
 * ```ts
 * const jwksUri = await discoverJwksUri('https://id.example.com/oidc', limits);
 * ```
 */
export async function discoverJwksUri(issuer: string, limits: FetchLimits): Promise<URL> {
  let lastError: unknown;
  for (const url of metadataUrls(issuer)) {
    let doc: unknown;
    try {
      doc = await fetchJson(url, limits);
    } catch (error) {
      lastError = error;
      // Only a missing document moves on to the next form; an outage is reported as it is.
      if (error instanceof FetchFailure && (error.status === 404 || error.status === 410)) continue;
      throw error;
    }
    if (doc === null || typeof doc !== 'object') throw new FetchFailure('metadata is not a JSON object');
    const meta = doc as Record<string, unknown>;
    if (meta.issuer !== issuer) {
      throw new FetchFailure('metadata issuer does not match the configured issuer');
    }
    if (typeof meta.jwks_uri !== 'string') throw new FetchFailure('metadata has no jwks_uri');
    let jwksUri: URL;
    try {
      jwksUri = new URL(meta.jwks_uri);
    } catch {
      throw new FetchFailure('metadata jwks_uri is not a URL');
    }
    if (!isAllowedUrl(jwksUri, limits.allowInsecureHttp)) {
      throw new FetchFailure('metadata jwks_uri must use https:');
    }
    return jwksUri;
  }
  throw lastError instanceof FetchFailure ? lastError : new FetchFailure('no metadata document found');
}
