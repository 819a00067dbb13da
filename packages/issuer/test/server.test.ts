/**
 * createIssuer wiring on every driver: routes, base path, JSON 404s, key changes by another process
 * (polled on SQLite; announced and read at once on PostgreSQL), instances started together on one
 * database, close.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { rotateSigningKey } from '../src/keys.js';
import { createIssuer } from '../src/server.js';
import { openStore } from '../src/storage/open.js';
import type { Store } from '../src/storage/store.js';
import { Agent, pkce, signIn } from './helpers/agent.js';
import { DRIVERS, freshDatabase, openTestStore } from './helpers/drivers.js';
import { adminToken, api, freePort, LogCapture, startIssuer } from './helpers/issuer.js';

const kidOf = (jwt: string): string =>
  JSON.parse(Buffer.from(jwt.split('.')[0]!, 'base64url').toString()).kid;

describe.each(DRIVERS)('createIssuer (%s)', (driver) => {
  it('serves the landing document, health and JSON 404s', async () => {
    const t = await startIssuer(driver);
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
    const port = await freePort();
    const logs = new LogCapture();
    const issuer = await createIssuer({
      baseUrl: `http://127.0.0.1:${port}/auth`,
      database: await freshDatabase(driver),
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

  it('picks up a key rotated by another process', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-server-'));
    // A database two processes can open: a SQLite file, or the PostgreSQL schema.
    const database = driver === 'sqlite' ? join(dir, 'issuer.sqlite') : await freshDatabase(driver);
    const t = await startIssuer(driver, { database, keys: { reloadInterval: 0 } });
    const other = openStore(database);
    try {
      const before = t.issuer.jwks().keys.map((key) => key.kid);
      expect(await t.issuer.reloadKeys()).toBe(false);
      await rotateSigningKey(other, t.issuer.config, Math.floor(Date.now() / 1000));
      if (driver === 'postgres') {
        // Announced with NOTIFY: no poll, no reload call.
        await vi.waitFor(() => expect(t.issuer.jwks().keys).toHaveLength(2), { timeout: 5_000 });
      } else {
        expect(await t.issuer.reloadKeys()).toBe(true);
      }
      const after = t.issuer.jwks().keys.map((key) => key.kid);
      expect(after).toHaveLength(2);
      expect(after[1]).toBe(before[0]);
      const token = await adminToken(t);
      expect(kidOf(token)).toBe(after[0]);
    } finally {
      await t.close();
      await other.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('two issuers started together on one empty database create one administrator and one key', async () => {
    const database = await freshDatabase(driver);
    // SQLite is single-node: two issuers in one process share the store object.
    const shared = driver === 'sqlite' ? await openTestStore(driver) : undefined;
    const start = () =>
      createIssuer({
        baseUrl: 'http://127.0.0.1:1',
        ...(shared === undefined ? { database } : { store: shared }),
        passwords: { scryptCost: 1024 },
        log: { level: 'silent' },
      });
    const issuers = await Promise.all([start(), start(), start()]);
    try {
      expect(issuers.filter((issuer) => issuer.admin.created)).toHaveLength(1);
      expect(new Set(issuers.map((issuer) => issuer.admin.adminClientId)).size).toBe(1);
      expect(new Set(issuers.map((issuer) => issuer.jwks().keys[0]!.kid)).size).toBe(1);
      const store = issuers[0]!.store;
      // The administrator and the admin console's application.
      expect((await store.applications.list({ page: 1, pageSize: 10 })).total).toBe(2);
      expect(await store.keys.list()).toHaveLength(1);
    } finally {
      await Promise.all(issuers.map((issuer) => issuer.close()));
      await shared?.close();
    }
  });

  it('closes its own store on close', async () => {
    const t = await startIssuer(driver);
    await t.close();
    await expect(t.issuer.store.ping()).rejects.toThrow();
  });

  it('does not close a store it was given; closes its own', async () => {
    const store = await openTestStore(driver);
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

describe('createIssuer on PostgreSQL: instances sharing one database', () => {
  const admin = { clientId: 'shared-admin', clientSecret: 'a'.repeat(40) };

  /** A store whose key notifications never arrive (a lost LISTEN connection), for the other paths. */
  const deaf = (real: Store): Store => ({
    driver: real.driver,
    multiNode: real.multiNode,
    migrate: () => real.migrate(),
    exclusive: (name, fn) => real.exclusive(name, fn),
    transaction: (fn) => real.transaction(fn),
    ping: () => real.ping(),
    close: () => real.close(),
    users: real.users,
    applications: real.applications,
    resources: real.resources,
    roles: real.roles,
    keys: { ...real.keys, watch: () => () => undefined },
    settings: real.settings,
    payloads: real.payloads,
    subjectTokens: real.subjectTokens,
    impersonationTokens: real.impersonationTokens,
    personalAccessTokens: real.personalAccessTokens,
    auditEvents: real.auditEvents,
    failures: real.failures,
    tokenRequests: real.tokenRequests,
    webhooks: real.webhooks,
    totpFactors: real.totpFactors,
  });

  /** Instance A (a test issuer) and instance B (same public baseUrl, its own port) on one database. */
  const start = async (notified: boolean) => {
    const database = await freshDatabase('postgres');
    const a = await startIssuer('postgres', { database, admin, keys: { reloadInterval: 0 } });
    const port = await freePort();
    const store = openStore(database);
    const b = await createIssuer({
      baseUrl: a.baseUrl,
      store: notified ? store : deaf(store),
      admin,
      passwords: { scryptCost: 1024 },
      keys: { reloadInterval: 0 },
      log: { level: 'silent' },
    });
    await b.listen(port, '127.0.0.1');
    return {
      a,
      b,
      bUrl: `http://127.0.0.1:${port}`,
      close: async () => {
        await b.close();
        await store.close();
        await a.close();
      },
    };
  };

  it('a rotation through one instance reaches the other through NOTIFY: it signs with the new key', async () => {
    const { a, b, close } = await start(true);
    try {
      const rotated = await api(a, await adminToken(a), 'POST', '/signing-keys/rotate');
      expect(rotated.status).toBe(201);
      await vi.waitFor(() => expect(b.jwks().keys[0]!.kid).toBe(rotated.body.kid), { timeout: 5_000 });
    } finally {
      await close();
    }
  });

  it('without notifications, the other instance’s JWKS and Management API still see a rotation at once', async () => {
    const { a, b, bUrl, close } = await start(false);
    try {
      const before = b.jwks().keys.map((key) => key.kid);
      const rotated = await api(a, await adminToken(a), 'POST', '/signing-keys/rotate');
      expect(rotated.status).toBe(201);
      const fresh = await adminToken(a);
      expect(kidOf(fresh)).toBe(rotated.body.kid);
      // Nothing told B yet: it still holds the old set.
      expect(b.jwks().keys.map((key) => key.kid)).toEqual(before);
      // A token signed with the new key meets an unknown kid at B's Management API: B re-reads.
      const viaB = await fetch(`${bUrl}/api/users`, { headers: { authorization: `Bearer ${fresh}` } });
      expect(viaB.status).toBe(200);
      expect(b.jwks().keys[0]!.kid).toBe(rotated.body.kid);
      // A second rotation, then B's JWKS endpoint: read from the database when asked.
      const again = await api(a, fresh, 'POST', '/signing-keys/rotate');
      const jwks = (await (await fetch(`${bUrl}/oidc/jwks`)).json()) as { keys: Array<{ kid: string }> };
      const kids = jwks.keys.map((key) => key.kid);
      expect(kids[0]).toBe(again.body.kid);
      expect(kids.slice(1).sort()).toEqual([rotated.body.kid, ...before].sort());
    } finally {
      await close();
    }
  });
});
