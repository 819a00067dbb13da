/**
 * End to end in a real browser (Chromium via playwright-core) with a real relying-party library
 * (openid-client): discovery → authorization code + PKCE with a resource indicator → sign-in page →
 * code → tokens → the access token validates with @gatehouse/core and opens a protected API →
 * refresh → client credentials. Everything stays on 127.0.0.1.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createVerifier, isAuthError } from '@gatehouse/core';
import * as client from 'openid-client';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRIVERS } from '../helpers/drivers.js';
import { adminToken, api, startIssuer, type TestIssuer } from '../helpers/issuer.js';

describe.each(DRIVERS)('%s', (driver) => {
  const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  const ORDERS_API = 'https://orders.example.com';

  let t: TestIssuer;
  let browser: Browser;
  let protectedApi: Server;
  let apiUrl: string;
  /** The relying party's callback: a real loopback server that records what the browser brings back. */
  let callbackServer: Server;
  let REDIRECT: string;
  const callbacks: string[] = [];

  beforeAll(async () => {
    t = await startIssuer(driver);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
    // A protected example API: GET /orders needs read:orders on audience ORDERS_API.
    const verifier = createVerifier({ issuer: `${t.baseUrl}/oidc`, audience: ORDERS_API, strict: true });
    protectedApi = createServer(async (req, res) => {
      try {
        const auth = await verifier.authenticate(req, { scopes: 'read:orders' });
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ orders: [], user: auth.subject }));
      } catch (err) {
        if (!isAuthError(err)) throw err;
        res
          .writeHead(err.status, { ...err.headers, 'content-type': 'application/json' })
          .end(JSON.stringify(err.toJSON()));
      }
    });
    await new Promise<void>((resolve) => protectedApi.listen(0, '127.0.0.1', resolve));
    apiUrl = `http://127.0.0.1:${(protectedApi.address() as AddressInfo).port}/orders`;
    callbackServer = createServer((req, res) => {
      const url = new URL(req.url ?? '/', REDIRECT);
      if (url.pathname === '/callback') callbacks.push(url.href);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('signed in');
    });
    await new Promise<void>((resolve) => callbackServer.listen(0, '127.0.0.1', resolve));
    REDIRECT = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}/callback`;
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => protectedApi?.close(resolve));
    await new Promise((resolve) => callbackServer?.close(resolve));
    await t?.close();
  });

  describe('newcomer flow through the Management API and a browser', () => {
    it('create a resource, a role, a user and an app; sign in; call the protected API', async () => {
      // 1. Management API with the bootstrap administrator's credentials.
      const admin = await adminToken(t);
      const resource = await api(t, admin, 'POST', '/resources', {
        name: 'Orders API',
        indicator: ORDERS_API,
      });
      expect(resource.status).toBe(201);
      const scope = await api(t, admin, 'POST', `/resources/${resource.body.id}/scopes`, {
        name: 'read:orders',
        description: 'Read orders',
      });
      expect(scope.status).toBe(201);
      const role = await api(t, admin, 'POST', '/roles', { name: 'order-reader', type: 'User' });
      expect(
        (await api(t, admin, 'POST', `/roles/${role.body.id}/scopes`, { scopeIds: [scope.body.id] })).status,
      ).toBe(204);
      const user = await api(t, admin, 'POST', '/users', {
        username: 'carol',
        email: 'carol@example.com',
        password: 'a long passphrase',
      });
      expect(
        (await api(t, admin, 'POST', `/users/${user.body.id}/roles`, { roleIds: [role.body.id] })).status,
      ).toBe(204);
      const app = await api(t, admin, 'POST', '/applications', {
        name: 'Orders web',
        type: 'Traditional',
        redirectUris: [REDIRECT],
        postLogoutRedirectUris: [REDIRECT.replace('/callback', '/')],
      });
      expect(app.status).toBe(201);
      expect(typeof app.body.clientSecret).toBe('string');

      // 2. The relying party discovers the issuer.
      const config = await client.discovery(
        new URL(`${t.baseUrl}/oidc`),
        app.body.clientId,
        app.body.clientSecret,
        undefined,
        {
          execute: [client.allowInsecureRequests],
        },
      );
      expect(config.serverMetadata().issuer).toBe(`${t.baseUrl}/oidc`);
      expect(config.serverMetadata().code_challenge_methods_supported).toEqual(['S256']);

      // 3. Authorization code + PKCE + resource, signed in through the real page.
      const codeVerifier = client.randomPKCECodeVerifier();
      const state = client.randomState();
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT,
        scope: 'openid profile offline_access read:orders',
        prompt: 'consent',
        code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
        resource: ORDERS_API,
        state,
      });
      const page = await browser.newPage();
      await page.goto(url.href);
      expect(await page.title()).toBe('Sign in');
      await page.fill('#identifier', 'carol');
      await page.fill('#password', 'wrong password');
      await page.click('button[type=submit]');
      await expect.poll(() => page.textContent('[role=alert]')).toContain('incorrect');
      await page.fill('#password', 'a long passphrase');
      await page.click('button[type=submit]');
      await page.waitForURL((url) => url.href.startsWith(REDIRECT));
      expect(await page.textContent('body')).toBe('signed in');
      const callback = callbacks.at(-1)!;

      const tokens = await client.authorizationCodeGrant(
        config,
        new URL(callback),
        { pkceCodeVerifier: codeVerifier, expectedState: state },
        { resource: ORDERS_API },
      );
      expect(tokens.scope).toBe('read:orders');
      expect(tokens.claims()?.sub).toBe(user.body.id);

      // 4. The access token validates with @gatehouse/core and opens the protected API.
      const verifier = createVerifier({ issuer: `${t.baseUrl}/oidc`, audience: ORDERS_API, strict: true });
      const auth = await verifier.verify(tokens.access_token, { scopes: 'read:orders' });
      expect(auth.clientId).toBe(app.body.clientId);
      const ok = await fetch(apiUrl, { headers: { authorization: `Bearer ${tokens.access_token}` } });
      expect(ok.status).toBe(200);
      expect(await ok.json()).toEqual({ orders: [], user: user.body.id });
      const denied = await fetch(apiUrl);
      expect(denied.status).toBe(401);

      // 5. Refresh (rotation) and userinfo.
      const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!, {
        resource: ORDERS_API,
      });
      expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
      expect((await verifier.verify(refreshed.access_token)).scopes).toEqual(['read:orders']);

      // 6. A second authorization reuses the browser session: no sign-in page.
      const before = callbacks.length;
      const again = client.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT,
        scope: 'openid',
        code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
        code_challenge_method: 'S256',
      });
      await page.goto(again.href);
      await page.waitForURL((url) => url.href.startsWith(REDIRECT));
      expect(callbacks).toHaveLength(before + 1);
      expect(new URL(callbacks.at(-1)!).searchParams.get('code')).toBeTruthy();
      await page.close();
    });

    it('client credentials through openid-client validate with @gatehouse/core', async () => {
      const admin = await adminToken(t);
      const m2mRole = await api(t, admin, 'POST', '/roles', {
        name: 'orders-service',
        type: 'MachineToMachine',
      });
      const scopes = await api(t, admin, 'GET', '/resources?pageSize=100');
      const orders = scopes.body.items.find((r: { indicator: string }) => r.indicator === ORDERS_API);
      const readScope = (await api(t, admin, 'GET', `/resources/${orders.id}/scopes`)).body.items[0];
      await api(t, admin, 'POST', `/roles/${m2mRole.body.id}/scopes`, { scopeIds: [readScope.id] });
      const worker = await api(t, admin, 'POST', '/applications', {
        name: 'Worker',
        type: 'MachineToMachine',
      });
      await api(t, admin, 'POST', `/applications/${worker.body.id}/roles`, { roleIds: [m2mRole.body.id] });

      const config = await client.discovery(
        new URL(`${t.baseUrl}/oidc`),
        worker.body.clientId,
        worker.body.clientSecret,
        undefined,
        {
          execute: [client.allowInsecureRequests],
        },
      );
      const tokens = await client.clientCredentialsGrant(config, {
        resource: ORDERS_API,
        scope: 'read:orders',
      });
      const res = await fetch(apiUrl, { headers: { authorization: `Bearer ${tokens.access_token}` } });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ orders: [], user: worker.body.clientId });
    });
  });
});
