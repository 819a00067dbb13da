/** The oidc-provider configuration as seen from outside: discovery metadata and client metadata per type. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toClientMetadata } from '../../src/oidc/client-metadata.js';
import type { ApplicationRecord } from '../../src/storage/store.js';
import { DRIVERS } from '../helpers/drivers.js';
import { startIssuer, type TestIssuer } from '../helpers/issuer.js';

describe.each(DRIVERS)('%s', (driver) => {
  let t: TestIssuer;
  beforeAll(async () => {
    t = await startIssuer(driver);
  });
  afterAll(() => t.close());

  const app = (over: Partial<ApplicationRecord>): ApplicationRecord => ({
    id: 'app_x',
    name: 'X',
    type: 'Traditional',
    redirectUris: ['https://x.example.com/cb'],
    postLogoutRedirectUris: [],
    secretHash: 'a'.repeat(64),
    tokenEndpointAuthMethod: 'client_secret_basic',
    firstParty: true,
    tokenExchangeEnabled: false,
    dpopBoundAccessTokens: false,
    requireActorToken: false,
    impersonationTokenTtl: null,
    customData: {},
    secretUpdatedAt: 0,
    createdAt: 0,
    updatedAt: 0,
    ...over,
  });

  describe('provider configuration', () => {
    it('publishes the issuer under /oidc with code + S256 only and no HMAC or none algorithms', async () => {
      const meta = (await (
        await fetch(`${t.baseUrl}/oidc/.well-known/openid-configuration`)
      ).json()) as Record<string, any>;
      expect(meta.issuer).toBe(`${t.baseUrl}/oidc`);
      expect(meta.authorization_endpoint).toBe(`${t.baseUrl}/oidc/auth`);
      expect(meta.token_endpoint).toBe(`${t.baseUrl}/oidc/token`);
      expect(meta.jwks_uri).toBe(`${t.baseUrl}/oidc/jwks`);
      expect(meta.userinfo_endpoint).toBe(`${t.baseUrl}/oidc/me`);
      expect(meta.end_session_endpoint).toBe(`${t.baseUrl}/oidc/session/end`);
      expect(meta.revocation_endpoint).toBe(`${t.baseUrl}/oidc/token/revocation`);
      expect(meta.introspection_endpoint).toBe(`${t.baseUrl}/oidc/token/introspection`);
      expect(meta.response_types_supported).toEqual(['code']);
      expect(meta.code_challenge_methods_supported).toEqual(['S256']);
      expect(meta.grant_types_supported).toEqual(
        expect.arrayContaining(['authorization_code', 'refresh_token', 'client_credentials']),
      );
      expect(meta.token_endpoint_auth_methods_supported).toEqual([
        'client_secret_basic',
        'client_secret_post',
        'none',
      ]);
      expect(meta.id_token_signing_alg_values_supported).toEqual(['RS256']);
      expect(JSON.stringify(meta)).not.toMatch(/HS(256|384|512)/);
      expect(meta.scopes_supported).toEqual(
        expect.arrayContaining(['openid', 'offline_access', 'profile', 'email']),
      );
    });

    it('serves the JWKS and a health check', async () => {
      const jwks = (await (await fetch(`${t.baseUrl}/oidc/jwks`)).json()) as {
        keys: Array<Record<string, unknown>>;
      };
      expect(jwks.keys).toHaveLength(1);
      expect(jwks.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
      expect(jwks.keys[0]!.d).toBeUndefined();
      expect(await (await fetch(`${t.baseUrl}/health`)).json()).toEqual({ status: 'ok' });
    });

    it('maps application types to client metadata', () => {
      expect(toClientMetadata(app({}), 'RS256')).toMatchObject({
        application_type: 'web',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
        client_secret: 'a'.repeat(64),
      });
      const spa = toClientMetadata(
        app({ type: 'SPA', tokenEndpointAuthMethod: 'none', secretHash: null }),
        'RS256',
      );
      expect(spa.client_secret).toBeUndefined();
      expect(toClientMetadata(app({ type: 'Native' }), 'RS256').application_type).toBe('native');
      expect(toClientMetadata(app({ type: 'MachineToMachine', redirectUris: [] }), 'RS256')).toMatchObject({
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
      });
    });
  });
});
