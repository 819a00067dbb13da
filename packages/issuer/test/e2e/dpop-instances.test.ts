/**
 * DPoP across two issuer processes (`gatehouse-issuer start`, the built CLI, with
 * `GATEHOUSE_DPOP_REQUIRE_NONCE=true`) on one PostgreSQL database behind the loopback load balancer:
 *
 * - D27: a proof accepted by one instance is refused by the other, also when both receive it at the
 *   same moment (replay detection is one atomic counter in the shared database);
 * - D28: server nonces handed out by one instance are accepted by the other (one secret, generated on
 *   the first start and kept in the database), and a client retries once on `use_dpop_nonce`.
 */
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoadBalancer } from '../helpers/balancer.js';
import { dpopClient, dpopKey, manualKey, manualProof, postWithProof } from '../helpers/dpop.js';
import { ACCESS_TOKEN_TYPE, TOKEN_EXCHANGE } from '../helpers/exchange.js';
import { ORDERS } from '../helpers/fixtures.js';
import { type InstancePair, startPair } from '../helpers/instance-pair.js';
import type { Instance } from '../helpers/instances.js';
import { payloadOf } from '../helpers/jwt.js';

const ADMIN = { clientId: 'dpop-admin', clientSecret: 'd'.repeat(40) };
const CONSOLE = { clientId: 'console', clientSecret: 'console-secret-0123456789abcdefghijklmno' };
const WORKER = { clientId: 'worker', clientSecret: 'worker-secret-0123456789abcdefghijklmnopqrs' };

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

let pair: InstancePair | undefined;

beforeAll(async () => {
  pair = await startPair({
    name: 'dpop',
    env: {
      GATEHOUSE_ADMIN_CLIENT_ID: ADMIN.clientId,
      GATEHOUSE_ADMIN_CLIENT_SECRET: ADMIN.clientSecret,
      GATEHOUSE_DPOP_REQUIRE_NONCE: 'true',
    },
    apps: { web: { name: 'Console', ...CONSOLE }, worker: WORKER },
  });
  ({ a, b, lb, aliceId } = pair);
}, 180_000);

afterAll(() => pair?.close());

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
