/**
 * Two issuer processes (`gatehouse-issuer start`, the built CLI) on one PostgreSQL database behind a
 * loopback load balancer behave as one server:
 *
 * - started together (with a `migrate` process) on an empty database: one administrator, one key;
 * - a code issued through instance A is redeemed through instance B; sign-in sessions, interactions,
 *   refresh tokens and personal access tokens made through one instance work at the other;
 * - 20 concurrent exchanges of one subject token, split across both, give exactly one success (B2);
 * - a key rotated through A signs tokens that B's JWKS serves at once, and B signs with it soon after;
 * - killing A (SIGKILL) in the middle of a load loses nothing A had committed, and B keeps serving.
 */
import { createVerifier } from '@gatehouse/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/internal/secrets.js';
import { MIGRATIONS } from '../../src/storage/migrations/index.js';
import type { Store } from '../../src/storage/store.js';
import { Agent, authorizeUrl, codeOf, pkce, signIn, tokenRequest } from '../helpers/agent.js';
import type { LoadBalancer } from '../helpers/balancer.js';
import { PAT_TOKEN_TYPE, TOKEN_EXCHANGE } from '../helpers/exchange.js';
import { ORDERS, PASSWORD, REDIRECT } from '../helpers/fixtures.js';
import { type InstancePair, startPair } from '../helpers/instance-pair.js';
import {
  exchangeSubjectToken,
  LOAD_RATE_LIMITS,
  mintSubjectToken,
  workerToken,
} from '../helpers/instance-world.js';
import type { Instance } from '../helpers/instances.js';

const ADMIN = { clientId: 'lb-admin', clientSecret: 'l'.repeat(40) };
const WEB = { clientId: 'web-app', clientSecret: 'web-secret-0123456789abcdefghijklmnopqrstuv' };
const WORKER = { clientId: 'worker', clientSecret: 'worker-secret-0123456789abcdefghijklmnopqrs' };

let store: Store;
let a: Instance;
let b: Instance;
let lb: LoadBalancer<Instance>;
let aliceId: string;

const kidOf = (jwt: string): string =>
  JSON.parse(Buffer.from(jwt.split('.')[0]!, 'base64url').toString()).kid;

async function adminTokenAt(url: string): Promise<string> {
  const res = await tokenRequest(url, { grant_type: 'client_credentials', resource: `${lb.url}/api` }, ADMIN);
  if (res.status !== 200) throw new Error(`admin token: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.access_token;
}

const mintAt = (url: string, admin: string) => mintSubjectToken(url, admin, aliceId);
const exchangeAt = (url: string, subjectToken: string) => exchangeSubjectToken(url, subjectToken, WEB);
const workerTokenAt = (url: string) => workerToken(url, WORKER);

let pair: InstancePair | undefined;

beforeAll(async () => {
  // On an empty database, at the same moment: both instances and a `migrate` process.
  pair = await startPair({
    name: 'multi',
    env: {
      GATEHOUSE_ADMIN_CLIENT_ID: ADMIN.clientId,
      GATEHOUSE_ADMIN_CLIENT_SECRET: ADMIN.clientSecret,
      // The load below sends thousands of token requests of one client from one address in a minute.
      ...LOAD_RATE_LIMITS,
    },
    apps: { web: WEB, worker: WORKER },
    migrate: true,
  });
  ({ a, b, lb, store, aliceId } = pair);
  expect(JSON.parse(pair.migrated!).current).toBe(MIGRATIONS.at(-1)!.version);
}, 180_000);

afterAll(() => pair?.close());

describe('two issuer instances on one PostgreSQL database', () => {
  it('started together on an empty database, they made one administrator and one key, and serve one JWKS', async () => {
    // The administrator, the admin console, and the two seeded applications.
    expect((await store.applications.list({ page: 1, pageSize: 10 })).total).toBe(4);
    expect(await store.keys.list()).toHaveLength(1);
    const [jwksA, jwksB] = await Promise.all(
      [a, b].map(async (instance) => (await fetch(`${instance.url}/oidc/jwks`)).json()),
    );
    expect(jwksA).toEqual(jwksB);
    expect(`${a.stderr()}${b.stderr()}`).not.toContain(ADMIN.clientSecret);
  });

  it('a code issued through A is redeemed through B', async () => {
    const agent = new Agent();
    const { verifier, challenge } = pkce();
    lb.route = () => a;
    const redirect = await signIn(agent, {
      baseUrl: lb.url,
      clientId: WEB.clientId,
      redirectUri: REDIRECT,
      scope: 'openid',
      resource: ORDERS,
      identifier: 'alice',
      password: PASSWORD,
      codeChallenge: challenge,
    });
    lb.route = () => b;
    try {
      const params = {
        grant_type: 'authorization_code',
        code: codeOf(redirect),
        code_verifier: verifier,
        redirect_uri: REDIRECT,
        resource: ORDERS,
      };
      const tokens = await tokenRequest(lb.url, params, WEB);
      expect(tokens.status).toBe(200);
      const verifierOfApi = createVerifier({
        issuer: `${lb.url}/oidc`,
        audience: ORDERS,
        jwksUri: `${b.url}/oidc/jwks`,
        strict: true,
      });
      expect((await verifierOfApi.verify(tokens.body.access_token)).claims.sub).toBe(aliceId);
      // The code is single-use across instances: replaying it at A fails.
      expect((await tokenRequest(a.url, params, WEB)).body.error).toBe('invalid_grant');
    } finally {
      lb.route = undefined;
    }
  });

  it('sessions, interactions, refresh tokens and personal access tokens are shared', async () => {
    const agent = new Agent();
    let turn = 0;
    // Every step of the sign-in goes to the other instance than the step before.
    lb.route = () => (turn++ % 2 === 0 ? a : b);
    try {
      const first = pkce();
      const signedIn = await signIn(agent, {
        baseUrl: lb.url,
        clientId: WEB.clientId,
        redirectUri: REDIRECT,
        scope: 'openid offline_access read:orders',
        resource: ORDERS,
        identifier: 'alice',
        password: PASSWORD,
        codeChallenge: first.challenge,
        extra: { prompt: 'consent' },
      });
      expect(turn).toBeGreaterThan(2);
      const issued = await tokenRequest(
        b.url,
        {
          grant_type: 'authorization_code',
          code: codeOf(signedIn),
          code_verifier: first.verifier,
          redirect_uri: REDIRECT,
          resource: ORDERS,
        },
        WEB,
      );
      expect(issued.status).toBe(200);
      // The sign-in session made across both instances: a new authorization at A needs no password.
      lb.route = () => a;
      const again = await agent.follow(
        await agent.get(
          authorizeUrl({
            baseUrl: lb.url,
            clientId: WEB.clientId,
            redirectUri: REDIRECT,
            scope: 'openid',
            codeChallenge: pkce().challenge,
          }),
        ),
        REDIRECT,
      );
      expect(again.location).toMatch(/^http:\/\/127\.0\.0\.1:8976\/callback\?code=/);
      // A refresh token issued by B is rotated at A; B then refuses the rotated one.
      const refreshed = await tokenRequest(
        a.url,
        { grant_type: 'refresh_token', refresh_token: issued.body.refresh_token, resource: ORDERS },
        WEB,
      );
      expect(refreshed.status).toBe(200);
      const replayed = await tokenRequest(
        b.url,
        { grant_type: 'refresh_token', refresh_token: issued.body.refresh_token },
        WEB,
      );
      expect(replayed.body.error).toBe('invalid_grant');
    } finally {
      lb.route = undefined;
    }
    // A personal access token created through A is exchanged at B.
    const created = await fetch(`${a.url}/api/users/${aliceId}/personal-access-tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await adminTokenAt(a.url)}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'ci' }),
    });
    expect(created.status).toBe(201);
    const { value } = (await created.json()) as { value: string };
    const viaB = await tokenRequest(
      b.url,
      {
        grant_type: TOKEN_EXCHANGE,
        subject_token: value,
        subject_token_type: PAT_TOKEN_TYPE,
        resource: ORDERS,
      },
      WEB,
    );
    expect(viaB.status).toBe(200);
  });

  it('20 concurrent exchanges of one subject token split across both give exactly one success (B2)', async () => {
    const succeeded = async () =>
      (await store.auditEvents.list({ type: 'token_exchange.succeeded' }, { page: 1, pageSize: 1 })).total;
    const before = await succeeded();
    const minted = await mintAt(a.url, await adminTokenAt(a.url));
    expect(minted.status).toBe(201);
    const { subjectToken } = (await minted.json()) as { subjectToken: string };
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => exchangeAt((i % 2 === 0 ? a : b).url, subjectToken)),
    );
    expect(results.filter((res) => res.status === 200)).toHaveLength(1);
    const refused = results.filter((res) => res.status !== 200);
    expect(refused).toHaveLength(19);
    for (const res of refused)
      expect(res.body.error_description).toBe('the subject token has already been used');
    expect((await succeeded()) - before).toBe(1);
  });

  it("a key rotated through A signs tokens that B's JWKS serves at once; B signs with it soon after", async () => {
    const admin = await adminTokenAt(a.url);
    const rotated = await fetch(`${a.url}/api/signing-keys/rotate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(rotated.status).toBe(201);
    const { kid } = (await rotated.json()) as { kid: string };
    const fromA = await workerTokenAt(a.url);
    expect(kidOf(fromA.body.access_token)).toBe(kid);
    const verifier = createVerifier({
      issuer: `${lb.url}/oidc`,
      audience: ORDERS,
      jwksUri: `${b.url}/oidc/jwks`,
      strict: true,
    });
    await expect(verifier.verify(fromA.body.access_token)).resolves.toBeDefined();
    const started = Date.now();
    let fromB = await workerTokenAt(b.url);
    while (kidOf(fromB.body.access_token) !== kid && Date.now() - started < 5_000) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      fromB = await workerTokenAt(b.url);
    }
    expect(kidOf(fromB.body.access_token)).toBe(kid);
    // Announced with NOTIFY: far below the polling fallback (keys.reloadInterval, 60 s).
    expect(Date.now() - started).toBeLessThan(5_000);
    await expect(verifier.verify(fromB.body.access_token)).resolves.toBeDefined();
  });

  it('killing A in the middle of a load loses nothing it committed, and B keeps serving', async () => {
    const admins = { A: await adminTokenAt(a.url), B: await adminTokenAt(b.url) };
    const committed: Array<{ value: string; exchanged: boolean }> = [];
    const served = { A: 0, B: 0 };
    let failuresAtB = 0;
    let killed = false;
    const deadline = Date.now() + 2_500;
    // Each worker: mint a subject token, exchange it, ask for a client-credentials token; on A or B.
    const worker = async (instance: Instance) => {
      while (Date.now() < deadline) {
        const name = instance.name as 'A' | 'B';
        try {
          const minted = await mintAt(instance.url, admins[name]);
          if (minted.status !== 201) throw new Error(`mint ${minted.status}`);
          const record = {
            value: ((await minted.json()) as { subjectToken: string }).subjectToken,
            exchanged: false,
          };
          committed.push(record);
          const exchanged = await exchangeAt(instance.url, record.value);
          if (exchanged.status !== 200) throw new Error(`exchange ${exchanged.status}`);
          record.exchanged = true;
          const cc = await workerTokenAt(instance.url);
          if (cc.status !== 200) throw new Error(`client credentials ${cc.status}`);
          served[name]++;
        } catch {
          // A request to A that was cut by the kill is not acknowledged; anything else is a failure.
          if (name === 'A' && killed) return;
          if (name === 'B') failuresAtB++;
          else throw new Error('A failed before it was killed');
        }
      }
    };
    const load = Promise.all([worker(a), worker(a), worker(b), worker(b)]);
    await new Promise((resolve) => setTimeout(resolve, 800));
    const servedByABeforeKill = served.A;
    killed = true;
    a.child.kill('SIGKILL');
    await load;
    await a.exited;

    expect(servedByABeforeKill).toBeGreaterThan(0);
    expect(failuresAtB).toBe(0);
    expect(served.B).toBeGreaterThan(0);
    // B still answers after the load, through the load balancer too (A is out of the rotation).
    expect((await workerTokenAt(b.url)).status).toBe(200);
    expect((await workerTokenAt(lb.url)).status).toBe(200);
    expect((await fetch(`${b.url}/health`)).status).toBe(200);

    // Everything acknowledged before the kill is in the database.
    const exchanged = await store.auditEvents.list(
      { type: 'token_exchange.succeeded' },
      { page: 1, pageSize: 100_000 },
    );
    const auditedTokens = new Set(exchanged.items.map((event) => event.details.subjectTokenId));
    for (const record of committed) {
      const stored = await store.subjectTokens.findByHash(hashSecret(record.value));
      expect(stored).toBeDefined();
      if (record.exchanged) {
        expect(stored!.consumedAt).not.toBeNull();
        expect(auditedTokens.has(stored!.id)).toBe(true);
      }
    }
    const created = await store.auditEvents.list({ type: 'subject_token.created' }, { page: 1, pageSize: 1 });
    expect(created.total).toBeGreaterThanOrEqual(committed.length);
  });
});
