/**
 * The `roles` claim of API resources that opt in (`rolesClaim`), end to end over HTTP: turned on
 * through the Management API, carried by tokens of every grant for that resource only (authorization
 * code: the user's roles; client credentials: the application's; token exchange: the subject's, never
 * the actor's), checked by @gatehouse/core's role requirement, never changed by a custom-claims
 * function, and refused past the size limit. Catalogue B100 (per-resource opt-in and scoping), B101
 * (impersonation and custom claims cannot change the roles), B102 (size limit refuses, never truncates);
 * and on PostgreSQL, what it costs: one round trip more for an opted-in resource, none for the others.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createVerifier, InsufficientRoleError } from '@gatehouse/core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { MAX_ROLES_CLAIM } from '../../src/index.js';
import { Agent, codeOf, pkce, signIn, tokenRequest } from '../helpers/agent.js';
import { DRIVERS } from '../helpers/drivers.js';
import {
  ACCESS_TOKEN_TYPE,
  exchange,
  loadExchangeWorld,
  mintSubjectToken,
  signedInTokens,
  userId,
} from '../helpers/exchange.js';
import { BILLING, loadWorld, ORDERS, PASSWORD, REDIRECT, SECRETS } from '../helpers/fixtures.js';
import { adminToken, api, startIssuer, type TestIssuer } from '../helpers/issuer.js';
import { payloadOf } from '../helpers/jwt.js';
import { countedQueries } from '../helpers/pg-queries.js';

/** A custom-claims function that tries to grant itself a role on the opted-in resource. */
function writeRoleForger(): string {
  const path = join(mkdtempSync(join(tmpdir(), 'gatehouse-roles-')), 'claims.mjs');
  writeFileSync(
    path,
    `export async function getCustomJwtClaims({ token }) {
  return token.aud === ${JSON.stringify(ORDERS)} ? { roles: ['superuser'], forged: true } : {};
}
`,
  );
  return path;
}

describe.each(DRIVERS)('%s', (driver) => {
  let t: TestIssuer;
  let admin: string;
  const worker = { clientId: 'worker', clientSecret: SECRETS.worker };
  const hoarder = { clientId: 'hoarder', clientSecret: 'hoarder-secret-0123456789abcdefghijklmno' };
  const verifier = () => createVerifier({ issuer: `${t.baseUrl}/oidc`, audience: ORDERS, strict: true });

  beforeAll(async () => {
    t = await startIssuer(driver, { customJwtClaims: { module: writeRoleForger(), workers: 1 } });
    await loadWorld(t);
    await loadExchangeWorld(t);
    const many = Array.from({ length: MAX_ROLES_CLAIM + 1 }, (_, i) => `bulk-${String(i).padStart(2, '0')}`);
    await t.issuer.seed({
      roles: [
        // Holds only a scope of BILLING: never in an ORDERS token.
        { name: 'billing-clerk', type: 'User', scopes: [{ resource: BILLING, scope: 'read:billing' }] },
        // Holds no scope at all: never in any roles claim.
        { name: 'idle', type: 'User' },
        ...many.map((name) => ({
          name,
          type: 'MachineToMachine' as const,
          scopes: [{ resource: ORDERS, scope: 'read:orders' }],
        })),
      ],
      users: [
        {
          username: 'erin',
          email: 'erin@example.com',
          password: PASSWORD,
          roles: ['writer', 'reader', 'billing-clerk', 'idle'],
        },
      ],
      applications: [{ name: 'Hoarder', type: 'MachineToMachine', ...hoarder, roles: many }],
    });
    admin = await adminToken(t);
  });
  afterAll(() => t.close());

  describe('Management API', () => {
    it('rolesClaim is off by default, turned on by PATCH, and must be a boolean', async () => {
      const list = await api(t, admin, 'GET', '/resources');
      const orders = list.body.items.find((r: { indicator: string }) => r.indicator === ORDERS);
      expect(orders.rolesClaim).toBe(false);
      const bad = await api(t, admin, 'PATCH', `/resources/${orders.id}`, { rolesClaim: 'yes' });
      expect(bad.status).toBe(400);
      const on = await api(t, admin, 'PATCH', `/resources/${orders.id}`, { rolesClaim: true });
      expect(on.status).toBe(200);
      expect(on.body).toMatchObject({ indicator: ORDERS, rolesClaim: true });
      expect((await api(t, admin, 'GET', `/resources/${orders.id}`)).body.rolesClaim).toBe(true);
      const created = await api(t, admin, 'POST', '/resources', {
        name: 'Reports',
        indicator: 'https://reports.example.com',
        rolesClaim: true,
      });
      expect(created.status).toBe(201);
      expect(created.body.rolesClaim).toBe(true);
    });
  });

  describe('tokens', () => {
    it('B100: a user token for the opted-in resource lists the roles holding its scopes, and requireRole accepts it', async () => {
      const tokens = await signedInTokens(t, 'erin', 'openid read:orders', ORDERS);
      const payload = payloadOf(tokens.access_token);
      // Sorted; not billing-clerk (BILLING only), not idle (no scope).
      expect(payload.roles).toEqual(['reader', 'writer']);
      const v = verifier();
      const auth = await v.verify(tokens.access_token, { roles: ['reader', 'writer'] });
      expect(auth.roles).toEqual(['reader', 'writer']);
      await expect(v.verify(tokens.access_token, { roles: 'billing-clerk' })).rejects.toBeInstanceOf(
        InsufficientRoleError,
      );
    });

    it('B100: a refresh lists the roles held now', async () => {
      const web = { clientId: 'web-app', clientSecret: SECRETS.web };
      const { verifier: codeVerifier, challenge } = pkce();
      const res = await signIn(new Agent(), {
        baseUrl: t.baseUrl,
        clientId: 'web-app',
        redirectUri: REDIRECT,
        scope: 'openid offline_access read:orders write:orders',
        resource: ORDERS,
        identifier: 'erin',
        password: PASSWORD,
        codeChallenge: challenge,
        extra: { prompt: 'consent' },
      });
      const first = await tokenRequest(
        t.baseUrl,
        {
          grant_type: 'authorization_code',
          code: codeOf(res),
          code_verifier: codeVerifier,
          redirect_uri: REDIRECT,
          resource: ORDERS,
        },
        web,
      );
      expect(payloadOf(first.body.access_token).roles).toEqual(['reader', 'writer']);
      const erin = await userId(t, 'erin');
      const writer = (await t.issuer.store.roles.findByName('writer'))!;
      await t.issuer.store.roles.unassign({ userId: erin }, writer.id);
      try {
        const refreshed = await tokenRequest(
          t.baseUrl,
          { grant_type: 'refresh_token', refresh_token: first.body.refresh_token, resource: ORDERS },
          web,
        );
        expect(refreshed.status).toBe(200);
        expect(payloadOf(refreshed.body.access_token).roles).toEqual(['reader']);
      } finally {
        await t.issuer.store.roles.assign({ userId: erin }, [writer.id]);
      }
    });

    it('B100: a token for a resource that did not opt in has no roles claim', async () => {
      const tokens = await signedInTokens(t, 'erin', 'openid read:billing', BILLING);
      const payload = payloadOf(tokens.access_token);
      expect(payload.aud).toBe(BILLING);
      expect(payload.scope).toBe('read:billing');
      expect(payload).not.toHaveProperty('roles');
    });

    it("B100: client credentials carry the application's roles for the resource", async () => {
      const orders = await tokenRequest(
        t.baseUrl,
        { grant_type: 'client_credentials', resource: ORDERS },
        worker,
      );
      expect(orders.status).toBe(200);
      expect(payloadOf(orders.body.access_token).roles).toEqual(['orders-service']);
      await expect(
        verifier().verify(orders.body.access_token, { roles: 'orders-service' }),
      ).resolves.toBeDefined();
      const billing = await tokenRequest(
        t.baseUrl,
        { grant_type: 'client_credentials', resource: BILLING },
        worker,
      );
      expect(billing.status).toBe(200);
      expect(payloadOf(billing.body.access_token)).not.toHaveProperty('roles');
    });

    it("B101: an impersonation token carries the subject's roles, never the actor's", async () => {
      // dave (reader, writer) acts; alice (reader) is the subject.
      const daveTokens = await signedInTokens(t, 'dave', 'openid');
      const subjectToken = await mintSubjectToken(t, admin, { userId: await userId(t, 'alice') });
      const res = await exchange(t, {
        subject_token: subjectToken,
        subject_token_type: ACCESS_TOKEN_TYPE,
        actor_token: daveTokens.access_token,
        actor_token_type: ACCESS_TOKEN_TYPE,
        resource: ORDERS,
      });
      expect(res.status).toBe(200);
      const payload = payloadOf(res.body.access_token);
      expect(payload.act).toEqual({ sub: await userId(t, 'dave') });
      expect(payload.roles).toEqual(['reader']);
      await expect(verifier().verify(res.body.access_token, { roles: 'writer' })).rejects.toBeInstanceOf(
        InsufficientRoleError,
      );
    });

    it('B101: a custom-claims function cannot change the roles of an opted-in resource', async () => {
      const tokens = await signedInTokens(t, 'alice', 'openid read:orders', ORDERS);
      const payload = payloadOf(tokens.access_token);
      expect(payload.forged).toBe(true); // the function ran
      expect(payload.roles).toEqual(['reader']);
    });

    it(`B102: more than ${MAX_ROLES_CLAIM} roles refuse the token (400 access_denied), never a truncated list`, async () => {
      const res = await tokenRequest(
        t.baseUrl,
        { grant_type: 'client_credentials', resource: ORDERS },
        hoarder,
      );
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: 'access_denied',
        error_description: `the subject holds more roles for this API resource than an access token may carry (at most ${MAX_ROLES_CLAIM}); no token was issued`,
      });
      expect(res.body.access_token).toBeUndefined();
      const line = t.logs.lines.find((l) => l.includes('roles_claim.too_many'));
      expect(line).toBeDefined();
      expect(JSON.parse(line!)).toMatchObject({ count: MAX_ROLES_CLAIM + 1, limit: MAX_ROLES_CLAIM });
      expect(t.logs.text).not.toContain('bulk-00');
      // Within the limit again, the same application gets its token.
      const billing = await tokenRequest(
        t.baseUrl,
        { grant_type: 'client_credentials', resource: BILLING },
        hoarder,
      );
      expect(billing.status).toBe(200);
    });
  });
});

describe('postgres: what the roles claim costs', () => {
  let t: TestIssuer;
  beforeAll(async () => {
    // No key polling and no rate-limit flush: nothing but the requests talks to the database while counting.
    t = await startIssuer('postgres', {
      keys: { reloadInterval: 0 },
      rateLimits: { syncInterval: 3_600_000 },
    });
    await loadWorld(t);
    await t.issuer.seed({ resources: [{ name: 'Orders', indicator: ORDERS, rolesClaim: true }] });
  });
  afterAll(() => t.close());
  afterEach(() => vi.restoreAllMocks());

  /** The queries sent while `request` runs (but the webhook dispatcher's poll). */
  const counted = async (request: () => Promise<unknown>) => (await countedQueries(request)).queries;

  it('client credentials: one round trip for an opted-in resource (the roles), none for others once read', async () => {
    const worker = { clientId: 'worker', clientSecret: SECRETS.worker };
    const cc = (resource: string) => () =>
      tokenRequest(t.baseUrl, { grant_type: 'client_credentials', resource }, worker);
    // Warm both instances: pool connections, and the kept reads (once the notification connection is live).
    await vi.waitFor(
      async () => {
        for (let i = 0; i < 2; i++) {
          expect((await cc(ORDERS)()).status).toBe(200);
          expect(await counted(cc(BILLING))).toHaveLength(0);
        }
      },
      { timeout: 5_000 },
    );
    for (let i = 0; i < 2; i++) {
      expect(await counted(cc(ORDERS))).toHaveLength(1);
      expect(await counted(cc(BILLING))).toHaveLength(0);
    }
  });
});
