/**
 * Security catalogue case D13: replay detection is shared by several API instances. Two API processes
 * (test/fixtures/api-instance.mjs), each with its own Redis connection, use one real redis-server as
 * their replay store: a proof accepted by instance A is refused by instance B, and of 20 concurrent
 * requests with one proof spread over both, exactly one is accepted. The processes are stopped in
 * teardown, pass or fail.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createDpopProof, createTestIssuer, generateDpopKey, type IssuerServer } from '@gatehouse/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, startRedisServer } from './helpers/redis-server.js';

const AUDIENCE = 'https://api.example.com';
const ORIGIN = 'https://api.example.com';
const URL_ = `${ORIGIN}/orders`;

let redis: RedisServer;
let jwks: IssuerServer;
const issuer = await createTestIssuer({ audience: AUDIENCE });
const children: ChildProcess[] = [];
const ports: number[] = [];

function startInstance(): Promise<number> {
  const child = spawn(process.execPath, [join(import.meta.dirname, 'fixtures/api-instance.mjs')], {
    env: {
      ...process.env,
      REDIS_URL: redis.url,
      ISSUER: jwks.issuer,
      JWKS_URI: jwks.jwksUri,
      AUDIENCE,
      ORIGIN,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let err = '';
  child.stderr!.on('data', (d) => {
    err += d;
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /READY (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`API instance exited with ${code}: ${err}`)));
  });
}

beforeAll(async () => {
  redis = await startRedisServer();
  jwks = await issuer.listen();
  ports.push(...(await Promise.all([startInstance(), startInstance()])));
}, 30_000);

afterAll(async () => {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
          setTimeout(() => child.kill('SIGKILL'), 3_000).unref();
        }),
    ),
  );
  await jwks?.close();
  await redis?.dispose();
});

async function call(port: number, token: string, proof: string) {
  const res = await fetch(`http://127.0.0.1:${port}/orders`, {
    headers: { authorization: `DPoP ${token}`, dpop: proof },
  });
  return { status: res.status, body: (await res.json()) as { reason?: string; pid: number } };
}

describe('D13: two API instances share one Redis replay store', () => {
  it('a proof accepted by instance A is refused by instance B', async () => {
    const key = await generateDpopKey();
    const token = await issuer.sign({ sub: 'customer-42' }, { dpop: key });
    const proof = createDpopProof({ key, method: 'GET', url: URL_, accessToken: token });
    const [a, b] = ports as [number, number];
    const first = await call(a, token, proof);
    expect(first.status).toBe(200);
    const replayed = await call(b, token, proof);
    expect(replayed.status).toBe(401);
    expect(replayed.body.reason).toBe('dpop_replay');
    expect(replayed.body.pid).not.toBe(first.body.pid);
    // A fresh proof works at B.
    expect(
      (await call(b, token, createDpopProof({ key, method: 'GET', url: URL_, accessToken: token }))).status,
    ).toBe(200);
  });

  it('20 concurrent requests with one proof, spread over both instances: exactly one 200', async () => {
    const key = await generateDpopKey();
    const token = await issuer.sign({ sub: 'customer-42' }, { dpop: key });
    const proof = createDpopProof({ key, method: 'GET', url: URL_, accessToken: token });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => call(ports[i % 2]!, token, proof)),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    const refused = answers.filter((a) => a.status === 401);
    expect(refused).toHaveLength(19);
    for (const r of refused) expect(r.body.reason).toBe('dpop_replay');
    expect(new Set(answers.map((a) => a.body.pid)).size).toBe(2);
  });

  it('with Redis down, both instances answer 503 and accept nothing', async () => {
    const key = await generateDpopKey();
    const token = await issuer.sign({ sub: 'customer-42' }, { dpop: key });
    await redis.stop();
    try {
      for (const port of ports) {
        const res = await call(
          port,
          token,
          createDpopProof({ key, method: 'GET', url: URL_, accessToken: token }),
        );
        expect(res.status).toBe(503);
        expect(res.body.reason).toBe('replay_store_unavailable');
      }
    } finally {
      await redis.start();
    }
  });
});
