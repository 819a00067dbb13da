/**
 * RFC 9728 OAuth 2.0 Protected Resource Metadata: the JSON document an API serves at
 * `/.well-known/oauth-protected-resource` so clients (MCP clients among them) can discover which
 * authorization server issues its tokens, and the wiring that puts the document's URL in every
 * `WWW-Authenticate` challenge (`resource_metadata="…"`, RFC 9728 §5.1).
 *
 * {@link createProtectedResource} is what the framework adapters call: it takes either verifier
 * options or a shared verifier, plus the metadata settings, and returns the verifier and the
 * document to serve. Everything is validated there; a bad option throws a `TypeError` naming it.
 *
 * @module
 */
import { fail } from './internal/fail.js';
import { rejectUnknownKeys } from './internal/known-keys.js';
import { isAllowedUrl, type ResolvedOptions, VERIFIER_OPTIONS, type VerifierOptions } from './options.js';
import type { Verifier } from './verifier.js';
import { createVerifier } from './verifier.js';

/** Path prefix of the metadata document (RFC 9728 §3). */
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/** How a resource accepts bearer tokens (RFC 9728 §2 `bearer_methods_supported`). */
export type BearerMethod = 'header' | 'body' | 'query';

/**
 * What the API says about itself. Every member is optional: `resource` defaults to the verifier's
 * first audience, `authorizationServers` to its issuers and `bearerMethodsSupported` to its token sources.
 *
 * @example
 * ```ts
 * const resourceMetadata: ResourceMetadataOptions = {
 *   resource: 'https://api.example.com/orders',
 *   authorizationServers: ['https://id.example.com/oidc'],
 *   scopesSupported: ['read:orders', 'write:orders'],
 * };
 * ```
 */
export interface ResourceMetadataOptions {
  /** Resource identifier: an `https:` URL (or `http:` on loopback) without query or fragment. Default: the first audience. */
  resource?: string;
  /** Issuer identifiers of the authorization servers that issue tokens for this API. Default: the verifier's issuers. */
  authorizationServers?: readonly string[];
  /** Scopes this API understands. Default: not published. */
  scopesSupported?: readonly string[];
  /** Default: `header`, plus `body` / `query` when those token sources are enabled. */
  bearerMethodsSupported?: readonly BearerMethod[];
  /** Human-readable name of the API. */
  resourceName?: string;
  /** URL of the API's developer documentation. */
  resourceDocumentation?: string;
  /** URL of the policy on how clients may use the data. */
  resourcePolicyUri?: string;
  /** URL of the terms of service. */
  resourceTosUri?: string;
}

/** The RFC 9728 §2 document, as served. */
export interface ProtectedResourceMetadata {
  readonly resource: string;
  readonly authorization_servers: readonly string[];
  readonly bearer_methods_supported: readonly BearerMethod[];
  readonly scopes_supported?: readonly string[];
  readonly resource_name?: string;
  readonly resource_documentation?: string;
  readonly resource_policy_uri?: string;
  readonly resource_tos_uri?: string;
  /** RFC 9728 §2: JWS algorithms accepted for DPoP proofs (when DPoP is not disabled). */
  readonly dpop_signing_alg_values_supported?: readonly string[];
  /** RFC 9728 §2: `true` when only DPoP-bound tokens are accepted. */
  readonly dpop_bound_access_tokens_required?: boolean;
  /** RFC 9728 §2: `true` when certificate-bound tokens are required, or read from a proxy's header. */
  readonly tls_client_certificate_bound_access_tokens?: boolean;
}

/** A validated metadata document and where to serve it. */
export interface ResourceMetadata {
  /** Absolute URL of the document: the value of `resource_metadata` in challenges. */
  readonly url: string;
  /** Path to route it on, e.g. `/.well-known/oauth-protected-resource` or `…/orders` for a resource with a path. */
  readonly path: string;
  /** The JSON body. */
  readonly document: ProtectedResourceMetadata;
  /** Headers to send with it besides the JSON content type (CORS: the document is public). */
  readonly headers: Readonly<Record<string, string>>;
}

/** Verifier settings the document's defaults are taken from. */
export type ResourceMetadataDefaults = Pick<ResolvedOptions, 'issuers' | 'audiences' | 'tokenSources'> &
  Partial<Pick<ResolvedOptions, 'dpop' | 'mtls'>>;

/** Options of {@link createProtectedResource} that create a verifier; `resourceMetadata` may be a URL served elsewhere. */
export type OwnVerifierOptions = Omit<VerifierOptions, 'resourceMetadata'> & {
  verifier?: undefined;
  /** The document to serve, or the URL of one served elsewhere (only put in challenges). */
  resourceMetadata?: string | ResourceMetadataOptions;
};

/** Options of {@link createProtectedResource} that reuse a verifier, so one key cache serves the whole app. */
export interface SharedVerifierOptions {
  /** A verifier from `createVerifier()`. To serve metadata, create it with `resourceMetadata: resourceMetadataUrl(resource)`. */
  verifier: Verifier;
  /** The document to serve; its URL must be the shared verifier's `resourceMetadata`. */
  resourceMetadata?: ResourceMetadataOptions;
}

/** Verifier options or a shared verifier, plus optional RFC 9728 metadata. */
export type ProtectedResourceOptions = OwnVerifierOptions | SharedVerifierOptions;

/** A verifier together with the metadata document it points to (`undefined` when none is served). */
export interface ProtectedResource {
  readonly verifier: Verifier;
  readonly metadata: ResourceMetadata | undefined;
}

// Every verifier option but `resourceMetadata`, which this module handles itself.
const VERIFIER_OPTION_NAMES = VERIFIER_OPTIONS.filter((name) => name !== 'resourceMetadata');

/** Members of {@link ResourceMetadataOptions}: the compiler keeps the list in step with the interface. */
const METADATA_OPTIONS = Object.keys({
  resource: 1,
  authorizationServers: 1,
  scopesSupported: 1,
  bearerMethodsSupported: 1,
  resourceName: 1,
  resourceDocumentation: 1,
  resourcePolicyUri: 1,
  resourceTosUri: 1,
} satisfies Record<keyof ResourceMetadataOptions, 1>);

const BEARER_METHODS: readonly string[] = ['header', 'body', 'query'];

function url(value: unknown, option: string): string {
  if (typeof value !== 'string') return fail(option, 'must be an absolute URL string');
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return fail(option, 'must be an absolute URL');
  }
  if (!isAllowedUrl(parsed, false)) fail(option, 'must use https: (http: only for loopback hosts)');
  return value;
}

function list(
  value: unknown,
  option: string,
  check: (item: string) => boolean,
  must: string,
): readonly string[] {
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string' && check(item)))
    fail(option, must);
  return Object.freeze([...new Set(value as string[])]);
}

/** Where the document of `resource` lives (RFC 9728 §3.1). */
function locate(resource: unknown, option: string): URL {
  const parsed = new URL(url(resource, option));
  if (parsed.search !== '' || parsed.hash !== '' || (resource as string).includes('#')) {
    fail(option, 'must not have a query or fragment (RFC 9728 §1.2)');
  }
  return new URL(
    `${parsed.origin}${RESOURCE_METADATA_PATH}${parsed.pathname === '/' ? '' : parsed.pathname}`,
  );
}

/**
 * The URL of the metadata document for a resource identifier (RFC 9728 §3.1): the well-known path is
 * inserted between the host and the resource's path. Throws a `TypeError` for anything but an
 * `https:` (or loopback `http:`) URL without query or fragment.
 *
 * @example
 * ```ts
 * import { createVerifier, resourceMetadataUrl } from '@gatehouse/core';
 *
 * resourceMetadataUrl('https://api.example.com/orders');
 * // 'https://api.example.com/.well-known/oauth-protected-resource/orders'
 * const verifier = createVerifier({ issuer, audience, resourceMetadata: resourceMetadataUrl(audience) });
 * ```
 */
export function resourceMetadataUrl(resource: string): string {
  return locate(resource, 'resource').href;
}

/**
 * Validate metadata settings and build the RFC 9728 document, taking defaults from a verifier's options.
 *
 * @example
 * ```ts
 * import { createResourceMetadata } from '@gatehouse/core';
 *
 * const metadata = createResourceMetadata({ scopesSupported: ['read:orders'] }, verifier.options);
 * // metadata.path → '/.well-known/oauth-protected-resource/orders'; metadata.document.resource → the audience
 * ```
 */
export function createResourceMetadata(
  options: ResourceMetadataOptions,
  defaults?: ResourceMetadataDefaults,
): ResourceMetadata {
  if (options === null || typeof options !== 'object')
    return fail('resourceMetadata', 'must be an object or a URL');
  rejectUnknownKeys(options, METADATA_OPTIONS, 'resourceMetadata.');
  const resource = options.resource ?? defaults?.audiences[0];
  const location = locate(resource, 'resourceMetadata.resource');
  const servers = options.authorizationServers ?? defaults?.issuers;
  const sources = defaults?.tokenSources;
  const methods = ['header', ...(sources?.body ? ['body'] : []), ...(sources?.query ? ['query'] : [])];
  const document: Record<string, unknown> = {
    resource,
    authorization_servers: list(
      servers,
      'resourceMetadata.authorizationServers',
      (s) => URL.canParse(s) && isAllowedUrl(new URL(s), false),
      'must be an array of https: issuer URLs',
    ),
    bearer_methods_supported: list(
      options.bearerMethodsSupported ?? methods,
      'resourceMetadata.bearerMethodsSupported',
      (m) => BEARER_METHODS.includes(m),
      'must be an array of "header", "body" or "query"',
    ),
  };
  if ((document.authorization_servers as string[]).length === 0) {
    fail('resourceMetadata.authorizationServers', 'must name at least one authorization server');
  }
  if (options.scopesSupported !== undefined) {
    document.scopes_supported = list(
      options.scopesSupported,
      'resourceMetadata.scopesSupported',
      (s) => s.length > 0 && !/\s/.test(s),
      'must be an array of scope strings without whitespace',
    );
  }
  if (options.resourceName !== undefined) {
    if (typeof options.resourceName !== 'string') fail('resourceMetadata.resourceName', 'must be a string');
    document.resource_name = options.resourceName;
  }
  const links = [
    ['resourceDocumentation', 'resource_documentation'],
    ['resourcePolicyUri', 'resource_policy_uri'],
    ['resourceTosUri', 'resource_tos_uri'],
  ] as const;
  for (const [option, member] of links) {
    if (options[option] !== undefined) document[member] = url(options[option], `resourceMetadata.${option}`);
  }
  const dpop = defaults?.dpop;
  if (dpop !== undefined && dpop.mode !== 'disabled') {
    document.dpop_signing_alg_values_supported = Object.freeze([...dpop.algorithms]);
    if (dpop.mode === 'required') document.dpop_bound_access_tokens_required = true;
  }
  const mtls = defaults?.mtls;
  if (mtls !== undefined && (mtls.mode === 'required' || mtls.certificateHeader !== undefined))
    document.tls_client_certificate_bound_access_tokens = true;
  return Object.freeze({
    url: location.href,
    path: location.pathname,
    document: Object.freeze(document) as unknown as ProtectedResourceMetadata,
    headers: Object.freeze({ 'access-control-allow-origin': '*' }),
  });
}

/**
 * Resolve adapter options into a verifier and the metadata document to serve. With verifier options,
 * a verifier is created whose challenges carry the document's URL; with `{ verifier }`, that shared
 * verifier is used as is, and its `resourceMetadata` must be the document's URL.
 *
 * @example
 * ```ts
 * import { createProtectedResource } from '@gatehouse/core';
 *
 * const { verifier, metadata } = createProtectedResource({
 *   issuer: 'https://id.example.com/oidc',
 *   audience: 'https://api.example.com',
 *   resourceMetadata: { scopesSupported: ['read:orders'] },
 * });
 * // serve metadata.document at metadata.path; 401s now say resource_metadata="https://api.example.com/.well-known/oauth-protected-resource"
 * ```
 */
export function createProtectedResource(options: ProtectedResourceOptions): ProtectedResource {
  if (options === null || typeof options !== 'object') throw new TypeError('options must be an object');
  const { resourceMetadata } = options;
  if (options.verifier !== undefined) {
    const { verifier } = options;
    if (typeof verifier?.authenticate !== 'function' || typeof verifier.authorize !== 'function') {
      fail('verifier', 'must be a verifier from createVerifier()');
    }
    const mixed = VERIFIER_OPTION_NAMES.filter(
      (name) => (options as unknown as Record<string, unknown>)[name] !== undefined,
    );
    if (mixed.length > 0)
      fail(
        'verifier',
        `cannot be combined with verifier options (${mixed.join(', ')}); set them on the shared verifier`,
      );
    if (typeof resourceMetadata === 'string')
      return fail('resourceMetadata', 'URL must be set on the shared verifier');
    if (resourceMetadata === undefined) return Object.freeze({ verifier, metadata: undefined });
    const metadata = createResourceMetadata(resourceMetadata, verifier.options);
    if (verifier.context.resourceMetadata !== metadata.url) {
      fail(
        'resourceMetadata',
        `needs the shared verifier to be created with resourceMetadata: "${metadata.url}"`,
      );
    }
    return Object.freeze({ verifier, metadata });
  }
  const verifierOptions = Object.fromEntries(
    VERIFIER_OPTION_NAMES.filter((name) => name in options).map((name) => [
      name,
      (options as unknown as Record<string, unknown>)[name],
    ]),
  ) as unknown as VerifierOptions;
  if (resourceMetadata === undefined || typeof resourceMetadata === 'string') {
    return Object.freeze({
      verifier: createVerifier({ ...verifierOptions, resourceMetadata }),
      metadata: undefined,
    });
  }
  if (resourceMetadata === null || typeof resourceMetadata !== 'object')
    fail('resourceMetadata', 'must be an object or a URL');
  const audience = typeof options.audience === 'string' ? options.audience : options.audience?.[0];
  const location = locate(resourceMetadata.resource ?? audience, 'resourceMetadata.resource');
  const verifier = createVerifier({ ...verifierOptions, resourceMetadata: location.href });
  return Object.freeze({ verifier, metadata: createResourceMetadata(resourceMetadata, verifier.options) });
}
