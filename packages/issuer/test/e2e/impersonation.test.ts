/**
 * Impersonation end to end, from a CLI-started issuer (`gatehouse-issuer start` with a config file),
 * with openid-client as the applications' OAuth library and @gatehouse/core guarding a real API:
 *
 * 1. The support console (signed in as the support engineer, through the real sign-in page) asks the
 *    integrator's backend to impersonate a user; the backend checks the actor and calls
 *    `POST /api/subject-tokens` with an M2M token (scope `subject-tokens:create`).
 * 2. The console exchanges the subject token at `/oidc/token` (RFC 8693), with its own access token as
 *    the actor token; a public SPA does the same without an actor token.
 * 3. The API sees the impersonated user as `sub` and the engineer as `AuthInfo.actor`.
 *
 * Everything stays on 127.0.0.1.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createVerifier, isAuthError } from '@gatehouse/core';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import type { Issuer } from '../../src/index.js';
import { Agent, hiddenField } from '../helpers/agent.js';
import { DRIVERS, freshDatabase } from '../helpers/drivers.js';
import { freePort, LogCapture, api as managementApi, type TestIssuer } from '../helpers/issuer.js';

describe.each(DRIVERS)('%s', (driver) => {
  const ORDERS = 'https://orders.example.com';
  const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
  const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';
  const ADMIN = { id: 'e2e-admin', secret: 'e'.repeat(40) };
  const PASSWORD = 'a long passphrase';
  const insecure = { execute: [client.allowInsecureRequests] };

  let dir: string;
  let issuer: Issuer;
  let baseUrl: string;
  let t: TestIssuer;
  let ordersApi: Server;
  let ordersUrl: string;
  let backend: Server;
  let backendUrl: string;
  let callback: Server;
  let REDIRECT: string;
  const ids: Record<string, string> = {};
  const apps: Record<string, { clientId: string; clientSecret?: string }> = {};

  async function listen(server: Server): Promise<string> {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async function readJson(req: import('node:http').IncomingMessage): Promise<Record<string, string>> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gatehouse-e2e-'));
    writeFileSync(
      join(dir, 'claims.mjs'),
      `export function getCustomJwtClaims({ context }) {
       const ticket = context.grant.subjectTokenContext?.ticketId;
       return ticket === undefined ? {} : { support_ticket: ticket };
     }\n`,
    );
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    writeFileSync(
      join(dir, 'gatehouse-issuer.json'),
      JSON.stringify({
        baseUrl,
        port,
        database: await freshDatabase(driver),
        customJwtClaims: { module: 'claims.mjs' },
      }),
    );
    const started = await runCli(['start'], {
      stdout: { write: () => true },
      stderr: { write: () => true },
      env: { GATEHOUSE_ADMIN_CLIENT_ID: ADMIN.id, GATEHOUSE_ADMIN_CLIENT_SECRET: ADMIN.secret },
      cwd: dir,
      logs: new LogCapture(),
    });
    expect(started.code).toBe(0);
    issuer = started.issuer!;
    t = {
      issuer,
      instances: [issuer],
      baseUrl,
      logs: new LogCapture(),
      admin: { clientId: ADMIN.id, clientSecret: ADMIN.secret },
      converge: async () => undefined,
      close: () => issuer.close(),
    };

    // The protected API: @gatehouse/core with discovery over loopback, RFC 9068 strict.
    const verifier = createVerifier({ issuer: `${baseUrl}/oidc`, audience: ORDERS, strict: true });
    ordersApi = createServer(async (req, res) => {
      try {
        const auth = await verifier.authenticate(req, { scopes: 'read:orders' });
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            subject: auth.subject,
            actor: auth.actor ?? null,
            delegated: auth.delegated,
            claims: auth.claims,
          }),
        );
      } catch (err) {
        if (!isAuthError(err)) throw err;
        res
          .writeHead(err.status, { ...err.headers, 'content-type': 'application/json' })
          .end(JSON.stringify(err.toJSON()));
      }
    });
    ordersUrl = `${await listen(ordersApi)}/orders`;

    // The integrator's backend: checks the actor, then mints a subject token with its M2M credentials.
    backend = createServer(async (req, res) => {
      const send = (status: number, body: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      const body = await readJson(req);
      const actorToken = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (actorToken === undefined) return send(401, { error: 'sign in first' });
      const m2m = await client.discovery(
        new URL(`${baseUrl}/oidc`),
        apps.backend!.clientId,
        apps.backend!.clientSecret,
        undefined,
        insecure,
      );
      // Who is asking? The issuer's userinfo endpoint answers for the actor's own token.
      let me: client.UserInfoResponse;
      try {
        me = await client.fetchUserInfo(m2m, actorToken, client.skipSubjectCheck);
      } catch {
        return send(401, { error: 'sign in first' });
      }
      if (me.sub !== ids.sam) return send(403, { error: 'not a support engineer' });
      const { access_token: managementToken } = await client.clientCredentialsGrant(m2m, {
        resource: `${baseUrl}/api`,
        scope: 'subject-tokens:create',
      });
      const created = await fetch(`${baseUrl}/api/subject-tokens`, {
        method: 'POST',
        headers: { authorization: `Bearer ${managementToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          userId: body.userId,
          context: { reason: body.reason, ticketId: body.ticketId },
          ...(body.bindActor === 'yes' ? { actorId: me.sub, applicationId: apps.console!.clientId } : {}),
        }),
      });
      send(created.status, await created.json());
    });
    backendUrl = await listen(backend);
    callback = createServer((_req, res) => res.writeHead(200).end('signed in'));
    REDIRECT = `${await listen(callback)}/callback`;

    // The world, through the Management API like an integrator would.
    const adminToken = (
      await client.clientCredentialsGrant(
        await client.discovery(new URL(`${baseUrl}/oidc`), ADMIN.id, ADMIN.secret, undefined, insecure),
        { resource: `${baseUrl}/api` },
      )
    ).access_token;
    const call = async (method: string, path: string, json?: unknown) => {
      const res = await managementApi(t, adminToken, method, path, json);
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
      return res.body;
    };
    const resource = await call('POST', '/resources', { name: 'Orders API', indicator: ORDERS });
    const read = await call('POST', `/resources/${resource.id}/scopes`, { name: 'read:orders' });
    const role = await call('POST', '/roles', { name: 'customer', type: 'User' });
    await call('POST', `/roles/${role.id}/scopes`, { scopeIds: [read.id] });
    ids.alice = (await call('POST', '/users', { username: 'alice', password: PASSWORD })).id;
    await call('POST', `/users/${ids.alice}/roles`, { roleIds: [role.id] });
    ids.sam = (await call('POST', '/users', { username: 'sam', password: PASSWORD })).id;
    const consoleApp = await call('POST', '/applications', {
      name: 'Support console',
      type: 'Traditional',
      redirectUris: [REDIRECT],
      tokenExchangeEnabled: true,
    });
    apps.console = { clientId: consoleApp.clientId, clientSecret: consoleApp.clientSecret };
    const spa = await call('POST', '/applications', {
      name: 'Support SPA',
      type: 'SPA',
      redirectUris: [REDIRECT],
      tokenExchangeEnabled: true,
    });
    apps.spa = { clientId: spa.clientId };
    const backendApp = await call('POST', '/applications', {
      name: 'Integrator backend',
      type: 'MachineToMachine',
    });
    apps.backend = { clientId: backendApp.clientId, clientSecret: backendApp.clientSecret };
    const management = (await call('GET', '/resources?pageSize=100')).items.find(
      (r: { system: boolean }) => r.system,
    );
    const createScope = (await call('GET', `/resources/${management.id}/scopes`)).items.find(
      (s: { name: string }) => s.name === 'subject-tokens:create',
    );
    const impersonator = await call('POST', '/roles', { name: 'impersonator', type: 'MachineToMachine' });
    await call('POST', `/roles/${impersonator.id}/scopes`, { scopeIds: [createScope.id] });
    await call('POST', `/applications/${backendApp.id}/roles`, { roleIds: [impersonator.id] });
  });

  afterAll(async () => {
    for (const server of [ordersApi, backend, callback]) {
      server?.closeAllConnections();
      await new Promise((resolve) => server?.close(resolve));
    }
    await issuer?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Sign sam in to the console with openid-client (authorization code + PKCE) through the real sign-in page. */
  async function signInAsSam(config: client.Configuration) {
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'openid profile',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    });
    const agent = new Agent();
    const page = await agent.follow(await agent.get(url.href), REDIRECT);
    const action = /<form method="post" action="([^"]+)"/.exec(page.text)![1]!;
    const posted = await agent.post(new URL(action, baseUrl).href, {
      csrf: hiddenField(page.text, 'csrf'),
      identifier: 'sam',
      password: PASSWORD,
    });
    const back = await agent.follow(posted, REDIRECT);
    return client.authorizationCodeGrant(config, new URL(back.location!), {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
  }

  async function askBackend(
    actorToken: string,
    bindActor: boolean,
  ): Promise<{ subjectToken: string; expiresIn: number }> {
    const res = await fetch(`${backendUrl}/impersonate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${actorToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        userId: ids.alice,
        reason: 'customer cannot see an order',
        ticketId: 'SUP-1234',
        bindActor: bindActor ? 'yes' : 'no',
      }),
    });
    expect(res.status).toBe(201);
    return (await res.json()) as { subjectToken: string; expiresIn: number };
  }

  async function callOrders(accessToken: string) {
    const res = await fetch(ordersUrl, { headers: { authorization: `Bearer ${accessToken}` } });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  }

  describe('impersonation end to end (CLI-started issuer, openid-client, @gatehouse/core)', () => {
    it('with an actor token: sub is the user, act and AuthInfo.actor name the engineer', async () => {
      const config = await client.discovery(
        new URL(`${baseUrl}/oidc`),
        apps.console!.clientId,
        apps.console!.clientSecret,
        undefined,
        insecure,
      );
      expect(config.serverMetadata().grant_types_supported).toContain(TOKEN_EXCHANGE);
      const session = await signInAsSam(config);
      expect(session.claims()?.sub).toBe(ids.sam);

      // Step 1: the console asks the integrator's backend.
      const { subjectToken, expiresIn } = await askBackend(session.access_token, true);
      expect(expiresIn).toBe(600);

      // Step 2: the console exchanges it, proving who acts with its own access token.
      const before = Math.floor(Date.now() / 1000);
      const tokens = await client.genericGrantRequest(config, TOKEN_EXCHANGE, {
        subject_token: subjectToken,
        subject_token_type: ACCESS_TOKEN,
        actor_token: session.access_token,
        actor_token_type: ACCESS_TOKEN,
        resource: ORDERS,
        scope: 'read:orders',
      });
      expect(tokens).toMatchObject({
        issued_token_type: ACCESS_TOKEN,
        token_type: 'bearer',
        expires_in: 300,
        scope: 'read:orders',
      });
      expect(tokens.refresh_token).toBeUndefined();

      // Step 3: the API sees both identities.
      const { status, body } = await callOrders(tokens.access_token);
      expect(status).toBe(200);
      expect(body.subject).toBe(ids.alice);
      expect(body.actor).toEqual({ sub: ids.sam });
      expect(body.delegated).toBe(true);
      expect(Object.keys(body.claims).sort()).toEqual(
        ['act', 'aud', 'client_id', 'exp', 'iat', 'iss', 'jti', 'scope', 'sub', 'support_ticket'].sort(),
      );
      expect(body.claims).toMatchObject({
        sub: ids.alice,
        act: { sub: ids.sam },
        client_id: apps.console!.clientId,
        iss: `${baseUrl}/oidc`,
        aud: ORDERS,
        scope: 'read:orders',
        support_ticket: 'SUP-1234',
      });
      expect(body.claims.iat).toBeGreaterThanOrEqual(before);
      expect(body.claims.exp - body.claims.iat).toBe(300);
      expect(typeof body.claims.jti).toBe('string');

      // Single use: the same subject token cannot be exchanged again.
      await expect(
        client.genericGrantRequest(config, TOKEN_EXCHANGE, {
          subject_token: subjectToken,
          subject_token_type: ACCESS_TOKEN,
          actor_token: session.access_token,
          actor_token_type: ACCESS_TOKEN,
          resource: ORDERS,
        }),
      ).rejects.toMatchObject({ error: 'invalid_request' });
    });

    it('without an actor token (a public SPA): no act, AuthInfo.actor undefined', async () => {
      const consoleConfig = await client.discovery(
        new URL(`${baseUrl}/oidc`),
        apps.console!.clientId,
        apps.console!.clientSecret,
        undefined,
        insecure,
      );
      const session = await signInAsSam(consoleConfig);
      const { subjectToken } = await askBackend(session.access_token, false);
      const spa = await client.discovery(
        new URL(`${baseUrl}/oidc`),
        apps.spa!.clientId,
        undefined,
        client.None(),
        insecure,
      );
      const tokens = await client.genericGrantRequest(spa, TOKEN_EXCHANGE, {
        subject_token: subjectToken,
        subject_token_type: ACCESS_TOKEN,
        resource: ORDERS,
        scope: 'read:orders',
      });
      expect(tokens.refresh_token).toBeUndefined();
      const { status, body } = await callOrders(tokens.access_token);
      expect(status).toBe(200);
      expect(body.subject).toBe(ids.alice);
      expect(body.actor).toBeNull();
      expect(body.delegated).toBe(false);
      expect(Object.keys(body.claims).sort()).toEqual(
        ['aud', 'client_id', 'exp', 'iat', 'iss', 'jti', 'scope', 'sub', 'support_ticket'].sort(),
      );
      expect(body.claims.client_id).toBe(apps.spa!.clientId);
    });

    it('the backend refuses a caller who is not signed in', async () => {
      const res = await fetch(`${backendUrl}/impersonate`, {
        method: 'POST',
        headers: { authorization: 'Bearer not-a-token', 'content-type': 'application/json' },
        body: JSON.stringify({ userId: ids.alice, reason: 'x', ticketId: 'y' }),
      });
      expect(res.status).toBe(401);
    });

    it('the audit trail lists the creation and the exchanges, by actor', async () => {
      const admin = (
        await client.clientCredentialsGrant(
          await client.discovery(new URL(`${baseUrl}/oidc`), ADMIN.id, ADMIN.secret, undefined, insecure),
          { resource: `${baseUrl}/api` },
        )
      ).access_token;
      const events = await managementApi(t, admin, 'GET', `/audit-events?userId=${ids.alice}&pageSize=100`);
      const types = events.body.items.map((event: { type: string }) => event.type);
      expect(types).toContain('subject_token.created');
      expect(types).toContain('token_exchange.succeeded');
      expect(types).toContain('token_exchange.failed');
      const byActor = await managementApi(
        t,
        admin,
        'GET',
        `/audit-events?actorId=${ids.sam}&type=token_exchange.succeeded`,
      );
      expect(byActor.body.items[0]).toMatchObject({
        userId: ids.alice,
        actorId: ids.sam,
        applicationId: apps.console!.clientId,
      });
    });
  });
});
