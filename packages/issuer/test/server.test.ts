/** createIssuer wiring: routes, base path, JSON 404s, key reload from another process, close. */
import { describe, expect, it } from 'vitest';
import { rotateSigningKey } from '../src/keys.js';
import { createIssuer } from '../src/server.js';
import { openSqliteStore } from '../src/storage/sqlite.js';
import { Agent, pkce, signIn } from './helpers/agent.js';
import { adminToken, api, LogCapture, startIssuer } from './helpers/issuer.js';

describe('createIssuer', () => {
  it('serves the landing document, health and JSON 404s', async () => {
    const t = await startIssuer();
    try {
      expect(await (await fetch(`${t.baseUrl}/`)).json()).toMatchObject({
        issuer: `${t.baseUrl}/oidc`,
        openapi: `${t.baseUrl}/api/openapi.json`,
      });
      const missing = await fetch(`${t.baseUrl}/nothing`);
      expect(missing.status).toBe(404);
      expect(await missing.json()).toEqual({ code: 'not_found', message: 'Not found' });
    } finally {
      await t.close();
    }
  });

  it('mounts everything under a base path', async () => {
    const probe = await startIssuer();
    const port = Number(new URL(probe.baseUrl).port);
    await probe.close();
    const logs = new LogCapture();
    const issuer = await createIssuer({
      baseUrl: `http://127.0.0.1:${port}/auth`,
      database: ':memory:',
      log: { destination: logs },
    });
    try {
      await issuer.listen(port, '127.0.0.1');
      const meta = (await (
        await fetch(`http://127.0.0.1:${port}/auth/oidc/.well-known/openid-configuration`)
      ).json()) as Record<string, string>;
      expect(meta.issuer).toBe(`http://127.0.0.1:${port}/auth/oidc`);
      expect(meta.token_endpoint).toBe(`http://127.0.0.1:${port}/auth/oidc/token`);
      expect((await fetch(`http://127.0.0.1:${port}/auth/health`)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(404);
      const t = {
        baseUrl: `http://127.0.0.1:${port}/auth`,
        admin: { clientId: issuer.admin.adminClientId, clientSecret: issuer.admin.adminClientSecret! },
      };
      const token = await adminToken(t as never);
      expect((await api(t as never, token, 'GET', '/users')).status).toBe(200);
      // Sign-in pages and cookies work under the prefix too.
      await issuer.seed({
        users: [{ username: 'alice', password: 'password123' }],
        applications: [
          { name: 'Web', type: 'SPA', clientId: 'spa', redirectUris: ['http://127.0.0.1:8976/cb'] },
        ],
      });
      const res = await signIn(new Agent(), {
        baseUrl: t.baseUrl,
        clientId: 'spa',
        redirectUri: 'http://127.0.0.1:8976/cb',
        scope: 'openid',
        identifier: 'alice',
        password: 'password123',
        codeChallenge: pkce().challenge,
      });
      expect(res.location).toMatch(/^http:\/\/127\.0\.0\.1:8976\/cb\?code=/);
    } finally {
      await issuer.close();
    }
  });

  it('picks up a key rotated by another process on reload', async () => {
    const t = await startIssuer();
    try {
      const before = t.issuer.jwks().keys.map((key) => key.kid);
      expect(await t.issuer.reloadKeys()).toBe(false);
      await rotateSigningKey(t.issuer.store, t.issuer.config, Math.floor(Date.now() / 1000));
      expect(await t.issuer.reloadKeys()).toBe(true);
      const after = t.issuer.jwks().keys.map((key) => key.kid);
      expect(after).toHaveLength(2);
      expect(after[1]).toBe(before[0]);
      const token = await adminToken(t);
      expect(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()).kid).toBe(after[0]);
    } finally {
      await t.close();
    }
  });

  it('does not close a store it was given; closes its own', async () => {
    const store = openSqliteStore(':memory:');
    const issuer = await createIssuer({ baseUrl: 'http://127.0.0.1:1', store, log: { level: 'silent' } });
    await issuer.close();
    await expect(store.ping()).resolves.toBeUndefined();
    await store.close();
  });

  it('rejects bad configuration before opening anything', async () => {
    await expect(createIssuer({ baseUrl: 'nope' })).rejects.toMatchObject({
      name: 'ConfigError',
      option: 'baseUrl',
    });
  });
});
