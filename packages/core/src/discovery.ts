/**
 * Finding the JWKS URL from the issuer's metadata: OpenID Connect Discovery
 * (`{issuer}/.well-known/openid-configuration`), then the RFC 8414 form
 * (`{origin}/.well-known/oauth-authorization-server{path}`). The document's `issuer` must equal the
 * configured issuer exactly, and its `jwks_uri` must be an `https:` URL (`http:` on loopback) on the
 * issuer's own origin, or on one of the origins the application allowed (`jwks.allowedOrigins`): a
 * forged or poisoned metadata document cannot send key fetching elsewhere.
 *
 * @module
 */
import { FetchFailure, type FetchLimits, fetchJson } from './internal/fetch.js';
import { printable } from './internal/printable.js';
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
 * An issuer's metadata document, checked to belong to it, and where it was found.
 *
 * @example
 * ```ts
 * const { meta, url }: IssuerMetadata = await fetchMetadata(issuer, limits);
 * ```
 */
export interface IssuerMetadata {
  readonly meta: Readonly<Record<string, unknown>>;
  readonly url: URL;
}

/**
 * Fetch the issuer's metadata (OpenID form, then RFC 8414 form). Throws {@link FetchFailure} when no
 * document can be had or the document does not belong to `issuer`.
 *
 * @example
 * ```ts
 * const { meta } = await fetchMetadata('https://id.example.com/oidc', limits);
 * meta.introspection_endpoint; // 'https://id.example.com/oidc/token/introspection'
 * ```
 */
export async function fetchMetadata(issuer: string, limits: FetchLimits): Promise<IssuerMetadata> {
  const tried: string[] = [];
  let status: number | undefined;
  for (const url of metadataUrls(issuer)) {
    let doc: unknown;
    try {
      doc = await fetchJson(url, limits);
    } catch (error) {
      // Only a missing document moves on to the next form; an outage is reported as it is.
      if (error instanceof FetchFailure && (error.status === 404 || error.status === 410)) {
        tried.push(`${url.href} (HTTP ${error.status})`);
        status = error.status;
        continue;
      }
      throw error;
    }
    if (doc === null || typeof doc !== 'object' || Array.isArray(doc))
      throw new FetchFailure('metadata_invalid', 'the metadata is not a JSON object', url);
    const meta = doc as Record<string, unknown>;
    if (meta.issuer !== issuer) {
      const found = typeof meta.issuer === 'string' ? `issuer "${printable(meta.issuer)}"` : 'no issuer';
      throw new FetchFailure('issuer_mismatch', `the metadata names ${found}, not "${issuer}"`, url);
    }
    return { meta, url };
  }
  throw new FetchFailure(
    'metadata_not_found',
    `no metadata at ${tried.join(' nor ')}`,
    metadataUrls(issuer)[0],
    status,
  );
}

/** An issuer's metadata document, and the `jwks_uri` in it once checked. */
export interface DiscoveredMetadata {
  readonly jwksUri: URL;
  /** The whole document (RFC 8414 / OpenID Discovery), e.g. for its `introspection_endpoint`. */
  readonly metadata: Readonly<Record<string, unknown>>;
}

/**
 * Fetch the issuer's metadata and return its `jwks_uri`; see {@link discoverMetadata}.
 *
 * @example
 * ```ts
 * const jwksUri = await discoverJwksUri('https://id.example.com/oidc', limits);
 * ```
 */
export async function discoverJwksUri(
  issuer: string,
  limits: FetchLimits,
  allowedOrigins: readonly string[] = [],
): Promise<URL> {
  return (await discoverMetadata(issuer, limits, allowedOrigins)).jwksUri;
}

/**
 * Fetch the issuer's metadata and return it with its checked `jwks_uri`. Throws {@link FetchFailure}
 * when no document can be had, the document does not belong to `issuer`, or its `jwks_uri` is neither
 * on the issuer's origin nor on one of `allowedOrigins` (`URL.origin` strings).
 *
 * @example
 * ```ts
 * const { jwksUri, metadata } = await discoverMetadata('https://id.example.com/oidc', limits);
 * const google = await discoverMetadata('https://accounts.google.com', limits, ['https://www.googleapis.com']);
 * ```
 */
export async function discoverMetadata(
  issuer: string,
  limits: FetchLimits,
  allowedOrigins: readonly string[] = [],
): Promise<DiscoveredMetadata> {
  const { meta, url } = await fetchMetadata(issuer, limits);
  if (typeof meta.jwks_uri !== 'string')
    throw new FetchFailure('metadata_invalid', 'the metadata has no jwks_uri', url);
  let jwksUri: URL;
  try {
    jwksUri = new URL(meta.jwks_uri);
  } catch {
    throw new FetchFailure('jwks_uri_invalid', 'the metadata jwks_uri is not a URL', url);
  }
  if (!isAllowedUrl(jwksUri, limits.allowInsecureHttp)) {
    throw new FetchFailure(
      'jwks_uri_invalid',
      `the metadata jwks_uri ${printable(jwksUri.href)} must use https:`,
      url,
    );
  }
  const own = new URL(issuer).origin;
  if (jwksUri.origin !== own && !allowedOrigins.includes(jwksUri.origin)) {
    throw new FetchFailure(
      'jwks_uri_origin',
      `the metadata jwks_uri ${printable(jwksUri.href)} is not on the issuer's origin ${own}`,
      url,
    );
  }
  return { jwksUri, metadata: Object.freeze({ ...meta }) };
}
