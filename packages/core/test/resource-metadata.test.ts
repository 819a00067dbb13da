import { describe, expect, it } from 'vitest';
import {
  createProtectedResource,
  createResourceMetadata,
  createVerifier,
  MissingTokenError,
  RESOURCE_METADATA_PATH,
  resourceMetadataUrl,
  type VerifierOptions,
} from '../src/index.js';

const ISSUER = 'https://id.example.com/oidc';
const API = 'https://api.example.com';

describe('resourceMetadataUrl', () => {
  it.each([
    [API, `${API}${RESOURCE_METADATA_PATH}`],
    [`${API}/`, `${API}/.well-known/oauth-protected-resource`],
    [`${API}/orders`, `${API}/.well-known/oauth-protected-resource/orders`],
    [`${API}/v1/orders/`, `${API}/.well-known/oauth-protected-resource/v1/orders/`],
    [
      'https://api.example.com:8443/mcp',
      'https://api.example.com:8443/.well-known/oauth-protected-resource/mcp',
    ],
    ['http://127.0.0.1:3000', 'http://127.0.0.1:3000/.well-known/oauth-protected-resource'],
  ])('inserts the well-known path between host and path of %s (RFC 9728 §3.1)', (resource, expected) => {
    expect(resourceMetadataUrl(resource)).toBe(expected);
  });

  it.each([
    ['not a url', /"resource" option must be an absolute URL/],
    ['http://api.example.com', /"resource" option must use https:/],
    [`${API}/x?tenant=1`, /must not have a query or fragment/],
    [`${API}/x#frag`, /must not have a query or fragment/],
    [`${API}/x#`, /must not have a query or fragment/],
  ])('refuses %s', (resource, message) => {
    expect(() => resourceMetadataUrl(resource)).toThrow(message);
  });
});

describe('createResourceMetadata', () => {
  const defaults = {
    issuers: [ISSUER],
    audiences: [`${API}/orders`, 'orders'],
    tokenSources: { query: false, body: false },
  };

  it('defaults resource, authorization servers and bearer methods from the verifier options', () => {
    const metadata = createResourceMetadata({}, defaults);
    expect(metadata.url).toBe(`${API}/.well-known/oauth-protected-resource/orders`);
    expect(metadata.path).toBe('/.well-known/oauth-protected-resource/orders');
    expect(metadata.document).toEqual({
      resource: `${API}/orders`,
      authorization_servers: [ISSUER],
      bearer_methods_supported: ['header'],
    });
    expect(metadata.headers).toEqual({ 'access-control-allow-origin': '*' });
    expect(Object.isFrozen(metadata.document)).toBe(true);
  });

  it('advertises DPoP and certificate binding from the verifier options (RFC 9728 §2)', () => {
    const base = { issuer: ISSUER, audience: `${API}/orders` };
    const doc = (options: Partial<VerifierOptions>) =>
      createResourceMetadata({}, createVerifier({ ...base, ...options }).options).document;
    expect(doc({}).dpop_signing_alg_values_supported).toEqual(['ES256', 'EdDSA', 'RS256', 'PS256']);
    expect(doc({}).dpop_bound_access_tokens_required).toBeUndefined();
    expect(doc({}).tls_client_certificate_bound_access_tokens).toBeUndefined();
    expect(doc({ dpop: { mode: 'required', algorithms: ['ES256'] } })).toMatchObject({
      dpop_signing_alg_values_supported: ['ES256'],
      dpop_bound_access_tokens_required: true,
    });
    expect(doc({ dpop: { mode: 'disabled' } }).dpop_signing_alg_values_supported).toBeUndefined();
    expect(doc({ mtls: { mode: 'required' } }).tls_client_certificate_bound_access_tokens).toBe(true);
    expect(
      doc({ mtls: { certificateHeader: 'client-cert' } }).tls_client_certificate_bound_access_tokens,
    ).toBe(true);
  });

  it('keeps the resource identifier exactly as given (RFC 9728 §3.3) and maps every member', () => {
    const metadata = createResourceMetadata(
      {
        resource: API,
        authorizationServers: ['https://a.example.com', 'https://b.example.com'],
        scopesSupported: ['read:orders', 'write:orders', 'read:orders'],
        resourceName: 'Orders API',
        resourceDocumentation: `${API}/docs`,
        resourcePolicyUri: `${API}/policy`,
        resourceTosUri: `${API}/tos`,
      },
      { ...defaults, tokenSources: { query: true, body: true } },
    );
    expect(metadata.path).toBe(RESOURCE_METADATA_PATH);
    expect(metadata.document).toEqual({
      resource: API,
      authorization_servers: ['https://a.example.com', 'https://b.example.com'],
      bearer_methods_supported: ['header', 'body', 'query'],
      scopes_supported: ['read:orders', 'write:orders'],
      resource_name: 'Orders API',
      resource_documentation: `${API}/docs`,
      resource_policy_uri: `${API}/policy`,
      resource_tos_uri: `${API}/tos`,
    });
  });

  it.each([
    [{ resource: 'orders' }, /"resourceMetadata.resource" option must be an absolute URL/],
    [{ resource: API, authorizationServers: [] }, /"resourceMetadata.authorizationServers" option must name/],
    [
      { resource: API, authorizationServers: ['http://id.example.com'] },
      /"resourceMetadata.authorizationServers"/,
    ],
    [
      { resource: API, authorizationServers: 'https://id.example.com' },
      /"resourceMetadata.authorizationServers"/,
    ],
    [{ resource: API, scopesSupported: ['read orders'] }, /"resourceMetadata.scopesSupported"/],
    [{ resource: API, bearerMethodsSupported: ['cookie'] }, /"resourceMetadata.bearerMethodsSupported"/],
    [{ resource: API, resourceName: 7 }, /"resourceMetadata.resourceName" option must be a string/],
    [{ resource: API, resourceTosUri: 'javascript:alert(1)' }, /"resourceMetadata.resourceTosUri"/],
  ])('refuses bad settings with a TypeError naming the option: %j', (options, message) => {
    expect(() => createResourceMetadata(options as never, defaults)).toThrow(TypeError);
    expect(() => createResourceMetadata(options as never, defaults)).toThrow(message);
  });

  it('needs a resource when no audience can stand in for it', () => {
    expect(() => createResourceMetadata({ authorizationServers: [ISSUER] })).toThrow(
      /"resourceMetadata.resource" option/,
    );
  });
});

describe('createProtectedResource', () => {
  it('creates a verifier whose challenges point at the served document', () => {
    const { verifier, metadata } = createProtectedResource({
      issuer: ISSUER,
      audience: `${API}/orders`,
      resourceMetadata: { scopesSupported: ['read:orders'] },
    });
    expect(metadata?.url).toBe(`${API}/.well-known/oauth-protected-resource/orders`);
    expect(verifier.context.resourceMetadata).toBe(metadata?.url);
    expect(new MissingTokenError(verifier.context).wwwAuthenticate).toBe(
      `Bearer realm="api", resource_metadata="${metadata?.url}", DPoP realm="api", algs="ES256 EdDSA RS256 PS256", resource_metadata="${metadata?.url}"`,
    );
    expect(metadata?.document.scopes_supported).toEqual(['read:orders']);
  });

  it('passes a metadata URL served elsewhere straight to the verifier', () => {
    const url = 'https://docs.example.com/meta.json';
    const { verifier, metadata } = createProtectedResource({
      issuer: ISSUER,
      audience: API,
      resourceMetadata: url,
    });
    expect(metadata).toBeUndefined();
    expect(verifier.context.resourceMetadata).toBe(url);
  });

  it('works without metadata', () => {
    const { verifier, metadata } = createProtectedResource({ issuer: ISSUER, audience: API });
    expect(metadata).toBeUndefined();
    expect(verifier.context.resourceMetadata).toBeUndefined();
  });

  it('reuses a shared verifier, whose metadata URL must match the document', () => {
    const shared = createVerifier({
      issuer: ISSUER,
      audience: API,
      resourceMetadata: resourceMetadataUrl(API),
    });
    const resolved = createProtectedResource({ verifier: shared, resourceMetadata: { resourceName: 'API' } });
    expect(resolved.verifier).toBe(shared);
    expect(resolved.metadata?.document).toMatchObject({ resource: API, resource_name: 'API' });
    expect(createProtectedResource({ verifier: shared }).metadata).toBeUndefined();

    const plain = createVerifier({ issuer: ISSUER, audience: API });
    expect(() => createProtectedResource({ verifier: plain, resourceMetadata: {} })).toThrow(
      `"resourceMetadata" option needs the shared verifier to be created with resourceMetadata: "${resourceMetadataUrl(API)}"`,
    );
  });

  it('refuses a shared verifier mixed with verifier options, or that is not a verifier', () => {
    const shared = createVerifier({ issuer: ISSUER, audience: API });
    expect(() =>
      createProtectedResource({ verifier: shared, audience: 'x', tokenSources: {} } as never),
    ).toThrow(/"verifier" option cannot be combined with verifier options \(audience, tokenSources\)/);
    expect(() => createProtectedResource({ verifier: {} } as never)).toThrow(
      /"verifier" option must be a verifier/,
    );
    expect(() => createProtectedResource({ verifier: shared, resourceMetadata: API } as never)).toThrow(
      /"resourceMetadata" option URL must be set on the shared verifier/,
    );
  });

  it('validates the verifier options as createVerifier does', () => {
    expect(() => createProtectedResource({ issuer: ISSUER, audience: API, clockTolerance: 900 })).toThrow(
      /"clockTolerance"/,
    );
    expect(() => createProtectedResource(null as never)).toThrow(TypeError);
    expect(() =>
      createProtectedResource({ issuer: ISSUER, audience: 'orders', resourceMetadata: {} }),
    ).toThrow(/"resourceMetadata.resource" option must be an absolute URL/);
  });
});
