/**
 * One public origin (catalogue B70–B72): the issuer's public URL is `https://id.example.test`, while
 * the tests reach it on a loopback port, sending forged `Host`, `X-Forwarded-Host` and
 * `X-Forwarded-Proto` headers (and absolute-form request targets), with and without a trusted proxy,
 * at the root of the origin and under a path prefix.
 * Every URL the issuer emits — discovery, JWKS, every redirect of a sign-in and a sign-out, the links
 * of its pages — names the configured base URL, never a forged host nor the address it listens on.
 * Discovery and JWKS answers are publicly cacheable; error answers are not. A DPoP proof at the token
 * endpoint must name the public URL (B79).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/config/defaults.js';
import { authorizeUrl, codeOf, hiddenField, pkce, signIn, tokenRequest } from '../helpers/agent.js';
import { manualKey, manualProof } from '../helpers/dpop.js';
import { DRIVERS } from '../helpers/drivers.js';
import { loadWorld, ORDERS, PASSWORD, REDIRECT, SECRETS } from '../helpers/fixtures.js';
import { ForwardingAgent, rawRequest } from '../helpers/forwarding-agent.js';
import { startIssuer, type TestIssuer } from '../helpers/issuer.js';

const ORIGIN = 'https://id.example.test';
const EVIL = 'evil.example';
const FORGED = {
  host: EVIL,
  'x-forwarded-host': EVIL,
  'x-forwarded-proto': 'http',
  forwarded: `host=${EVIL}`,
};

/** Every absolute http(s) URL in a text (JSON, HTML, a header). */
const urlsIn = (text: string): string[] => text.match(/https?:\/\/[^\s"'<>&\\]+/g) ?? [];

describe.each(DRIVERS)('%s', (driver) => {
  // The second case also puts the issuer under a path prefix of its public URL.
  describe.each([
    { hops: 0, path: '' },
    { hops: 1, path: '/auth' },
  ])('proxy hops $hops, base path "$path"', ({ hops, path }) => {
    const PUBLIC = `${ORIGIN}${path}`;
    let t: TestIssuer;
    beforeAll(async () => {
      t = await startIssuer(driver, { baseUrl: PUBLIC, proxy: { hops } });
      await loadWorld(t);
    });
    afterAll(() => t.close());

    /** A URL the issuer emitted may name its public origin or the client's redirect URI, nothing else. */
    const expectOwnUrls = (text: string) => {
      expect(text).not.toContain(EVIL);
      expect(text).not.toContain(new URL(t.baseUrl).host);
      for (const url of urlsIn(text))
        if (!url.startsWith(REDIRECT)) expect(url.startsWith(`${PUBLIC}/`) || url === PUBLIC, url).toBe(true);
    };

    it('B70: discovery names the base URL whatever Host, X-Forwarded-Host or request target is sent', async () => {
      const targets = [
        `${path}/oidc/.well-known/openid-configuration`,
        `/.well-known/oauth-authorization-server${path}/oidc`,
        `http://${EVIL}${path}/oidc/.well-known/openid-configuration`,
        `//${EVIL}${path}/oidc/.well-known/openid-configuration`,
      ];
      for (const target of targets) {
        const res = await rawRequest(t.baseUrl, { target, headers: FORGED });
        if (target.startsWith('/.well-known/oauth-authorization-server') && res.status === 404) continue;
        expect(res.status, target).toBe(200);
        const meta = JSON.parse(res.text) as Record<string, unknown>;
        expect(meta.issuer).toBe(`${PUBLIC}/oidc`);
        expect(meta.jwks_uri).toBe(`${PUBLIC}/oidc/jwks`);
        expect(meta.token_endpoint).toBe(`${PUBLIC}/oidc/token`);
        expect(meta.authorization_endpoint).toBe(`${PUBLIC}/oidc/auth`);
        expectOwnUrls(res.text);
      }
    });

    it('B72: discovery and the JWKS are publicly cacheable for a few minutes; errors are not', async () => {
      const discovery = await rawRequest(t.baseUrl, {
        target: `${path}/oidc/.well-known/openid-configuration`,
        headers: FORGED,
      });
      expect(discovery.headers.get('cache-control')).toBe(
        `public, max-age=${DEFAULTS.responses.discoveryMaxAge}`,
      );
      const jwks = await rawRequest(t.baseUrl, { target: `${path}/oidc/jwks`, headers: FORGED });
      expect(jwks.status).toBe(200);
      expect(jwks.headers.get('cache-control')).toBe(`public, max-age=${DEFAULTS.responses.jwksMaxAge}`);
      expect(JSON.parse(jwks.text).keys.length).toBeGreaterThan(0);
      expectOwnUrls(jwks.text);
      const refused = await rawRequest(t.baseUrl, {
        method: 'POST',
        target: `${path}/oidc/jwks`,
        headers: FORGED,
      });
      expect(refused.status).not.toBe(200);
      expect(refused.headers.get('cache-control') ?? '').not.toContain('public');
    });

    it('B71: Management API Location headers and the root document name the base URL', async () => {
      const token = await tokenRequest(
        `${t.baseUrl}${path}`,
        { grant_type: 'client_credentials', resource: `${PUBLIC}/api` },
        t.admin,
      );
      expect(token.status).toBe(200);
      const created = await rawRequest(t.baseUrl, {
        method: 'POST',
        target: `${path}/api/roles`,
        headers: {
          ...FORGED,
          authorization: `Bearer ${token.body.access_token}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ name: `role-${Math.random().toString(36).slice(2)}`, type: 'User' }),
      });
      expect(created.status, created.text).toBe(201);
      expect(created.headers.get('location')).toMatch(new RegExp(`^${PUBLIC}/api/roles/`));
      const root = await rawRequest(t.baseUrl, { target: `${path}/`, headers: FORGED });
      expect(root.status).toBe(200);
      expectOwnUrls(root.text);
      const openapi = await rawRequest(t.baseUrl, { target: `${path}/api/openapi.json`, headers: FORGED });
      expect(JSON.parse(openapi.text).servers[0].url).toBe(`${PUBLIC}/api`);
    });

    it('B79: a DPoP proof at the token endpoint must name the base URL, not a forged host', async () => {
      const key = manualKey();
      const tokenAt = (htu: string) =>
        rawRequest(t.baseUrl, {
          method: 'POST',
          target: `${path}/oidc/token`,
          headers: {
            ...FORGED,
            'content-type': 'application/x-www-form-urlencoded',
            authorization: `Basic ${Buffer.from(`worker:${SECRETS.worker}`).toString('base64')}`,
            dpop: manualProof(key, { htm: 'POST', htu }),
          },
          body: new URLSearchParams({ grant_type: 'client_credentials', resource: ORDERS }).toString(),
        });
      for (const htu of [`http://${EVIL}/oidc/token`, `${t.baseUrl}/oidc/token`]) {
        const forged = await tokenAt(htu);
        expect(forged.status, htu).toBe(400);
        expect(JSON.parse(forged.text)).toMatchObject({ error: 'invalid_dpop_proof' });
      }
      const own = await tokenAt(`${PUBLIC}/oidc/token`);
      expect(own.status, own.text).toBe(200);
      expect(JSON.parse(own.text).token_type).toBe('DPoP');
    });

    it('B71: every redirect and page link of a sign-in and a sign-out names the base URL', async () => {
      const agent = new ForwardingAgent(t.baseUrl, FORGED);
      const { verifier, challenge } = pkce();
      const options = {
        baseUrl: PUBLIC,
        clientId: 'web-app',
        redirectUri: REDIRECT,
        scope: 'openid',
        identifier: 'alice',
        password: PASSWORD,
        codeChallenge: challenge,
      };
      const done = await signIn(agent, options);
      expect(done.location, done.text).toMatch(/^http:\/\/127\.0\.0\.1:8976\/callback\?code=/);
      // The authorization response names the issuer (RFC 9207), from the configuration too.
      expect(new URL(done.location!).searchParams.get('iss')).toBe(`${PUBLIC}/oidc`);
      // The redirect to the sign-in page, the one after the password (resume), and every page seen.
      const locations = agent.responses.map((res) => res.headers.get('location')).filter((l) => l !== null);
      expect(locations.length).toBeGreaterThanOrEqual(3);
      expect(locations[0]).toMatch(new RegExp(`^${PUBLIC}/interaction/[\\w-]+$`));
      for (const res of agent.responses) {
        expectOwnUrls(res.headers.get('location') ?? '');
        expectOwnUrls(res.text);
      }
      const tokens = await tokenRequest(
        `${t.baseUrl}${path}`,
        {
          grant_type: 'authorization_code',
          code: codeOf(done),
          code_verifier: verifier,
          redirect_uri: REDIRECT,
        },
        { clientId: 'web-app', clientSecret: SECRETS.web },
      );
      expect(tokens.status).toBe(200);

      // Sign-out: the confirmation page posts to the base URL, and the end lands on it.
      const before = agent.responses.length;
      const page = await agent.get(`${PUBLIC}/oidc/session/end?id_token_hint=${tokens.body.id_token}`);
      expect(page.status).toBe(200);
      expect(page.text).toContain(`action="${PUBLIC}/oidc/session/end/confirm"`);
      const confirmed = await agent.post(`${PUBLIC}/oidc/session/end/confirm`, {
        xsrf: hiddenField(page.text, 'xsrf'),
        logout: 'yes',
      });
      await agent.follow(confirmed, REDIRECT);
      for (const res of agent.responses.slice(before)) {
        expectOwnUrls(res.headers.get('location') ?? '');
        expectOwnUrls(res.text);
      }
      // A forged Host on the authorization request itself changes nothing either.
      const start = await agent.get(authorizeUrl({ ...options, codeChallenge: challenge }));
      expect(start.headers.get('location')).toMatch(new RegExp(`^${PUBLIC}/interaction/`));
    });
  });
});
