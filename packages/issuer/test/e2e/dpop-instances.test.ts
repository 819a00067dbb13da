/**
 * DPoP across two issuer processes (`gatehouse-issuer start`, the built CLI, with
 * `GATEHOUSE_DPOP_REQUIRE_NONCE=true`) on one PostgreSQL database behind the loopback load balancer:
 *
 * - D27: a proof accepted by one instance is refused by the other, also when both receive it at the
 *   same moment (replay detection is one atomic counter in the shared database);
 * - D28: server nonces handed out by one instance are accepted by the other (one secret, generated on
 *   the first start and kept in the database), and a client retries once on `use_dpop_nonce`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/storage/open.js';
import type { Store } from '../../src/storage/store.js';
import { type LoadBalancer, startLoadBalancer } from '../helpers/balancer.js';
import { dpopClient, dpopKey, manualKey, manualProof, postWithProof } from '../helpers/dpop.js';
import { freshPostgresUrl } from '../helpers/drivers.js';
import { ACCESS_TOKEN_TYPE, TOKEN_EXCHANGE } from '../helpers/exchange.js';
import {
  ensureBuilt,
  type Instance,
  runCliProcess,
  startInstance,
  stopInstance,
} from '../helpers/instances.js';
import { freePort } from '../helpers/issuer.js';
import { payloadOf } from '../helpers/jwt.js';

const ORDERS = 'https://orders.example.com';
const ADMIN = { clientId: 'dpop-admin', clientSecret: 'd'.repeat(40) };
const CONSOLE = { clientId: 'console', clientSecret: 'console-secret-0123456789abcdefghijklmno' };
const WORKER = { clientId: 'worker', clientSecret: 'worker-secret-0123456789abcdefghijklmnopqrs' };

let dir: string;
let store: Store;
let a: Instance;
let b: Instance;
let lb: LoadBalancer<Instance>;
let aliceId: string;
/** Which instance served each request through the balancer, in order. */
const served: string[] = [];

const tokenUrl = () => `${lb.url}/oidc/token`;
const workerForm = { grant_type: 'client_credentials', resource: ORDERS, scope: 'read:orders' };

/** Route every request to `instances` in turn (and record it), until the returned function is called. */
function routeInTurn(...instances: Instance[]): () => void {
  let turn = 0;
  lb.route = () => {
    const target = instances[turn++ % instances.length]!;
    served.push(target.name);
    return target;
  };
  return () => {
    lb.route = undefined;
  };
}

/** A fresh nonce from `instance` (its `use_dpop_nonce` answer to a proof without one). */
async function nonceFrom(instance: Instance): Promise<string> {
  const release = routeInTurn(instance);
  try {
    const key = manualKey();
    const res = await postWithProof(
      tokenUrl(),
      workerForm,
      manualProof(key, { htm: 'POST', htu: tokenUrl() }),
      WORKER,
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('use_dpop_nonce');
    return res.headers.get('dpop-nonce')!;
  } finally {
    release();
  }
}

beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-dpop-'));
  const database = await freshPostgresUrl();
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const env = {
    DATABASE_URL: database,
    GATEHOUSE_ADMIN_CLIENT_ID: ADMIN.clientId,
    GATEHOUSE_ADMIN_CLIENT_SECRET: ADMIN.clientSecret,
    GATEHOUSE_DPOP_REQUIRE_NONCE: 'true',
  };
  const [first, second] = await Promise.allSettled([
    startInstance('A', baseUrl, env),
    startInstance('B', baseUrl, env),
  ]);
  if (first.status === 'fulfilled') a = first.value;
  if (second.status === 'fulfilled') b = second.value;
  for (const outcome of [first, second]) if (outcome.status === 'rejected') throw outcome.reason;
  writeFileSync(
    join(dir, 'seed.json'),
    JSON.stringify({
      resources: [{ name: 'Orders', indicator: ORDERS, scopes: ['read:orders'] }],
      roles: [
        { name: 'reader', type: 'User', scopes: [{ resource: ORDERS, scope: 'read:orders' }] },
        { name: 'service', type: 'MachineToMachine', scopes: [{ resource: ORDERS, scope: 'read:orders' }] },
      ],
      users: [{ username: 'alice', password: 'correct horse battery staple', roles: ['reader'] }],
      applications: [
        {
          name: 'Console',
          type: 'Traditional',
          clientId: CONSOLE.clientId,
          clientSecret: CONSOLE.clientSecret,
          redirectUris: ['http://127.0.0.1:8976/callback'],
          tokenExchangeEnabled: true,
        },
        {
          name: 'Worker',
          type: 'MachineToMachine',
          clientId: WORKER.clientId,
          clientSecret: WORKER.clientSecret,
          roles: ['service'],
        },
      ],
    }),
  );
  await runCliProcess(['seed', join(dir, 'seed.json'), '--base-url', baseUrl], env);
  lb = await startLoadBalancer(port, [a, b]);
  store = openStore(database);
  aliceId = (await store.users.findByLogin('alice'))!.id;
}, 180_000);

afterAll(async () => {
  await lb?.close();
  await Promise.all([a, b].filter(Boolean).map((instance) => stopInstance(instance)));
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('DPoP on two issuer instances sharing one PostgreSQL database', () => {
  it('D28: a nonce from one instance is accepted by the other; the client retries once on use_dpop_nonce', async () => {
    const worker = await dpopClient(lb.url, WORKER.clientId, WORKER.clientSecret);
    const key = await dpopKey(worker);
    served.length = 0;
    const release = routeInTurn(a, b);
    let tokens: oidc.TokenEndpointResponse;
    try {
      tokens = await oidc.clientCredentialsGrant(
        worker.config,
        { resource: ORDERS, scope: 'read:orders' },
        { DPoP: key.handle },
      );
    } finally {
      release();
    }
    expect(served).toEqual(['A', 'B']);
    const proofs = worker.sent
      .filter((request) => request.url === tokenUrl())
      .map((request) => payloadOf(request.dpop!));
    expect(proofs).toHaveLength(2);
    expect(proofs[0]!.nonce).toBeUndefined();
    expect(typeof proofs[1]!.nonce).toBe('string');
    expect(tokens.token_type).toBe('dpop');
    expect(payloadOf(tokens.access_token).cnf).toEqual({ jkt: key.jkt });

    // And the other way round, by hand: B's nonce at A.
    const nonce = await nonceFrom(b);
    const own = manualKey();
    const release2 = routeInTurn(a);
    try {
      const res = await postWithProof(
        tokenUrl(),
        workerForm,
        manualProof(own, { htm: 'POST', htu: tokenUrl(), nonce }),
        WORKER,
      );
      expect(res.status).toBe(200);
      expect(payloadOf(res.body.access_token).cnf).toEqual({ jkt: own.jkt });
    } finally {
      release2();
    }
  });

  it('D28: a proof without a nonce, or with a forged one, gets use_dpop_nonce and a fresh DPoP-Nonce at either instance', async () => {
    for (const instance of [a, b]) {
      const release = routeInTurn(instance);
      try {
        for (const nonce of [undefined, 'forged-nonce-value']) {
          const proof = manualProof(manualKey(), {
            htm: 'POST',
            htu: tokenUrl(),
            ...(nonce ? { nonce } : {}),
          });
          const res = await postWithProof(tokenUrl(), workerForm, proof, WORKER);
          expect(res.status).toBe(400);
          expect(res.body.error).toBe('use_dpop_nonce');
          expect(res.headers.get('dpop-nonce')).toMatch(/^[A-Za-z0-9_-]{20,}$/);
        }
      } finally {
        release();
      }
    }
  });

  it('D27: a proof accepted by instance A is refused when replayed at instance B', async () => {
    const nonce = await nonceFrom(a);
    const key = manualKey();
    const proof = manualProof(key, { htm: 'POST', htu: tokenUrl(), nonce });
    const releaseA = routeInTurn(a);
    try {
      expect((await postWithProof(tokenUrl(), workerForm, proof, WORKER)).status).toBe(200);
    } finally {
      releaseA();
    }
    const releaseB = routeInTurn(b);
    try {
      const replayed = await postWithProof(tokenUrl(), workerForm, proof, WORKER);
      expect(replayed.status).toBe(400);
      expect(replayed.body.error).toBe('invalid_grant');
    } finally {
      releaseB();
    }
  });

  it('D27: one proof sent 20 times at once, split across both instances, is accepted exactly once', async () => {
    const nonce = await nonceFrom(b);
    const proof = manualProof(manualKey(), { htm: 'POST', htu: tokenUrl(), nonce });
    served.length = 0;
    const release = routeInTurn(a, b);
    let results: Array<{ status: number; body: Record<string, any> }>;
    try {
      results = await Promise.all(
        Array.from({ length: 20 }, () => postWithProof(tokenUrl(), workerForm, proof, WORKER)),
      );
    } finally {
      release();
    }
    expect(new Set(served)).toEqual(new Set(['A', 'B']));
    expect(results.filter((res) => res.status === 200)).toHaveLength(1);
    expect(results.filter((res) => res.status === 400 && res.body.error === 'invalid_grant')).toHaveLength(
      19,
    );
  });

  it('D27: a proof used for a token exchange at A is refused at B, and the subject token there survives', async () => {
    const admin = await postWithProof(
      tokenUrl(),
      { grant_type: 'client_credentials', resource: `${lb.url}/api`, scope: 'all' },
      undefined,
      ADMIN,
    );
    expect(admin.status).toBe(200);
    const mint = async () => {
      const res = await fetch(`${lb.url}/api/subject-tokens`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin.body.access_token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ userId: aliceId }),
      });
      return ((await res.json()) as { subjectToken: string }).subjectToken;
    };
    const form = (subjectToken: string) => ({
      grant_type: TOKEN_EXCHANGE,
      subject_token: subjectToken,
      subject_token_type: ACCESS_TOKEN_TYPE,
      resource: ORDERS,
    });
    const key = manualKey();
    const nonce = await nonceFrom(a);
    const proof = manualProof(key, { htm: 'POST', htu: tokenUrl(), nonce });
    const first = await mint();
    const second = await mint();
    const releaseA = routeInTurn(a);
    try {
      const res = await postWithProof(tokenUrl(), form(first), proof, CONSOLE);
      expect(res.status).toBe(200);
      expect(res.body.token_type).toBe('DPoP');
      expect(payloadOf(res.body.access_token).cnf).toEqual({ jkt: key.jkt });
    } finally {
      releaseA();
    }
    const releaseB = routeInTurn(b);
    try {
      const replayed = await postWithProof(tokenUrl(), form(second), proof, CONSOLE);
      expect(replayed.status).toBe(400);
      expect(replayed.body).toMatchObject({
        error: 'invalid_request',
        error_description: 'DPoP proof JWT Replay detected',
      });
      const fresh = manualProof(key, { htm: 'POST', htu: tokenUrl(), nonce: await nonceFrom(b) });
      const redeemed = await postWithProof(tokenUrl(), form(second), fresh, CONSOLE);
      expect(redeemed.status).toBe(200);
    } finally {
      releaseB();
    }
  });
});
