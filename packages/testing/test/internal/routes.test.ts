import { describe, expect, it } from 'vitest';
import {
  defaultJwksUri,
  discoveryDocument,
  endpointsFor,
  outageResult,
  type RouteContent,
  route,
} from '../../src/internal/routes.js';

const content = (outage?: RouteContent['outage']): RouteContent => ({
  issuer: 'https://id.test/oidc',
  jwksUri: 'https://id.test/oidc/jwks',
  alg: 'ES256',
  jwks: () => ({ keys: [] }),
  outage,
});

describe('endpointsFor', () => {
  it('builds the OpenID and RFC 8414 metadata URLs', () => {
    expect(endpointsFor('https://id.test/oidc', 'https://id.test/oidc/jwks')).toEqual({
      openid: 'https://id.test/oidc/.well-known/openid-configuration',
      oauth: 'https://id.test/.well-known/oauth-authorization-server/oidc',
      jwks: 'https://id.test/oidc/jwks',
    });
  });

  it('handles issuers without a path, and trailing slashes', () => {
    expect(endpointsFor('https://id.test', 'https://id.test/jwks')).toMatchObject({
      openid: 'https://id.test/.well-known/openid-configuration',
      oauth: 'https://id.test/.well-known/oauth-authorization-server',
    });
    expect(endpointsFor('https://id.test/t/', defaultJwksUri('https://id.test/t/'))).toMatchObject({
      openid: 'https://id.test/t/.well-known/openid-configuration',
      jwks: 'https://id.test/t/jwks',
    });
  });
});

describe('route', () => {
  const endpoints = endpointsFor('https://id.test/oidc', 'https://id.test/oidc/jwks');
  const get = (url: string, c = content(), method = 'GET') => route(endpoints, c, method, new URL(url));

  it('answers discovery (both forms) and the JWKS, ignoring the query', () => {
    const openid = get('https://id.test/oidc/.well-known/openid-configuration?x');
    expect(openid).toMatchObject({ kind: 'response', status: 200 });
    expect(JSON.parse((openid as { body: string }).body)).toEqual(discoveryDocument(content()));
    expect(get('https://id.test/.well-known/oauth-authorization-server/oidc')).toMatchObject({ status: 200 });
    expect(get('https://id.test/oidc/jwks?v=2')).toMatchObject({ status: 200, body: '{"keys":[]}' });
  });

  it('returns undefined for other URLs, and 405 for other methods', () => {
    expect(get('https://id.test/oidc/jwks/')).toBeUndefined();
    expect(get('https://other.test/oidc/jwks')).toBeUndefined();
    expect(get('https://id.test/oidc/jwks', content(), 'POST')).toMatchObject({ status: 405 });
  });

  it('replaces only the JWKS answer during an outage', () => {
    expect(get('https://id.test/oidc/jwks', content('serverError'))).toMatchObject({ status: 500 });
    expect(get('https://id.test/oidc/jwks', content('timeout'))).toEqual({ kind: 'hang' });
    expect(
      get('https://id.test/oidc/.well-known/openid-configuration', content('serverError')),
    ).toMatchObject({ status: 200 });
    const malformed = outageResult('malformed') as { body: string };
    expect(() => JSON.parse(malformed.body)).toThrow(SyntaxError);
  });

  it('describes the issuer in the discovery document', () => {
    expect(discoveryDocument(content())).toMatchObject({
      issuer: 'https://id.test/oidc',
      jwks_uri: 'https://id.test/oidc/jwks',
      token_endpoint: 'https://id.test/oidc/token',
      id_token_signing_alg_values_supported: ['ES256'],
    });
  });
});
