/**
 * A rolling restart under load loses nothing: two `gatehouse-issuer start` processes (the built CLI)
 * on one PostgreSQL database behind HAProxy, which checks `/health/ready` every 250 ms and takes an
 * instance out after two failures. While a bounded load of client-credentials tokens, token
 * exchanges (a subject token minted through the Management API, then exchanged) and Management API
 * reads runs through the balancer, A gets SIGTERM, is started again, and — once HAProxy has it back in
 * rotation — so does B. Every request of the load is answered as it should be (none refused, none
 * lost), both stops exit 0 having drained cleanly, the restarted instances serve, and every exchange
 * that was answered has its `token_exchange.succeeded` audit event (and there is no other). HAProxy
 * and the instances are stopped pass or fail; PostgreSQL is the suite's throwaway cluster.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenRequest } from '../helpers/agent.js';
import { freshPostgresUrl } from '../helpers/drivers.js';
import { ORDERS } from '../helpers/fixtures.js';
import { type Haproxy, haproxyBinary, startHaproxy } from '../helpers/haproxy.js';
import {
  exchangeSubjectToken,
  LOAD_RATE_LIMITS,
  mintSubjectToken,
  seedWorld,
  workerToken,
} from '../helpers/instance-world.js';
import {
  ensureBuilt,
  type Instance,
  runCliProcess,
  startInstance,
  startTogether,
  stopInstance,
} from '../helpers/instances.js';
import { freePort } from '../helpers/issuer.js';

const ADMIN = { clientId: 'rr-admin', clientSecret: 'r'.repeat(40) };
const WEB = { clientId: 'rr-web', clientSecret: 'rr-web-secret-0123456789abcdefghijklmnopqr' };
const WORKER = { clientId: 'rr-worker', clientSecret: 'rr-worker-secret-0123456789abcdefghijklmn' };
/** Requests in flight at once through the balancer. */
const WORKERS = 6;
/** Bounds of the load: it stops at the end of the restart, or at either of these. */
const MAX_REQUESTS = 40_000;
const MAX_LOAD_MS = 240_000;
/** Seconds an instance keeps serving after SIGTERM: well above HAProxy's 2 × 250 ms to take it out. */
const DRAIN_DELAY = 2;

let dir: string;
let database: string;
let env: Record<string, string>;
let baseUrl: string;
const ports: Record<'A' | 'B', number> = { A: 0, B: 0 };
const running: Record<'A' | 'B', Instance | undefined> = { A: undefined, B: undefined };
let lb: Haproxy | undefined;

// A start while the other instance carries the whole load can take long on a busy 2-core machine.
const start = (name: 'A' | 'B') =>
  startInstance(name, baseUrl, env, ports[name], { logs: true, timeout: 90_000 });

beforeAll(async () => {
  ensureBuilt();
  haproxyBinary(); // fails with what to install, before anything is started
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-rolling-'));
  database = await freshPostgresUrl();
  const lbPort = await freePort();
  ports.A = await freePort();
  ports.B = await freePort();
  baseUrl = `http://127.0.0.1:${lbPort}`;
  env = {
    DATABASE_URL: database,
    GATEHOUSE_ADMIN_CLIENT_ID: ADMIN.clientId,
    GATEHOUSE_ADMIN_CLIENT_SECRET: ADMIN.clientSecret,
    GATEHOUSE_PROXY_HOPS: '1',
    GATEHOUSE_LOG_LEVEL: 'info',
    GATEHOUSE_SHUTDOWN_DRAIN_DELAY: String(DRAIN_DELAY),
    GATEHOUSE_SHUTDOWN_DRAIN_TIMEOUT: '20',
    // The load sends thousands of requests of one client from one address in a minute.
    ...LOAD_RATE_LIMITS,
  };
  await runCliProcess(['migrate'], env);
  await seedWorld(dir, baseUrl, env, { web: WEB, worker: WORKER });
  [running.A, running.B] = await startTogether([start('A'), start('B')]);
  lb = await startHaproxy(
    dir,
    [
      { name: 'A', port: ports.A },
      { name: 'B', port: ports.B },
    ],
    { check: '/health/ready' },
    lbPort,
  );
  await lb.until('A', 'UP');
  await lb.until('B', 'UP');
}, 180_000);

afterAll(async () => {
  await lb?.close();
  await Promise.all(Object.values(running).map((instance) => instance && stopInstance(instance)));
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/** One failed request of the load: what was asked, and what came back (never a token). */
interface Failure {
  readonly what: string;
  readonly at: number;
  readonly status: number | string;
  readonly error?: unknown;
}

const jtiOf = (jwt: string): string =>
  JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()).jti;

/** The bounded load: WORKERS loops through the balancer until `stop()` (or a bound) ends them. */
function startLoad(adminToken: string, aliceId: string) {
  const started = Date.now();
  let stopped = false;
  let requests = 0;
  const failures: Failure[] = [];
  const exchanged: string[] = [];
  const counts = { clientCredentials: 0, exchanges: 0, management: 0 };
  const more = () => !stopped && requests < MAX_REQUESTS && Date.now() - started < MAX_LOAD_MS;
  const fail = (what: string, status: number | string, error?: unknown) =>
    failures.push({ what, at: Date.now() - started, status, error });

  const clientCredentials = async () => {
    requests += 1;
    const res = await workerToken(baseUrl, WORKER);
    if (res.status === 200 && typeof res.body.access_token === 'string') counts.clientCredentials += 1;
    else fail('client_credentials', res.status, res.body.error);
  };
  const exchange = async () => {
    requests += 2;
    const minted = await mintSubjectToken(baseUrl, adminToken, aliceId);
    const body = (await minted.json()) as { subjectToken?: string; code?: string };
    if (minted.status !== 201 || body.subjectToken === undefined) {
      fail('POST /api/subject-tokens', minted.status, body.code);
      return;
    }
    const res = await exchangeSubjectToken(baseUrl, body.subjectToken, WEB);
    if (res.status === 200 && typeof res.body.access_token === 'string') {
      exchanged.push(jtiOf(res.body.access_token));
      counts.exchanges += 1;
    } else fail('token exchange', res.status, res.body.error);
  };
  const management = async () => {
    requests += 1;
    const res = await fetch(`${baseUrl}/api/users?pageSize=5`, {
      headers: { authorization: `Bearer ${adminToken}` },
    });
    const body = (await res.json()) as { items?: unknown[] };
    if (res.status === 200 && Array.isArray(body.items)) counts.management += 1;
    else fail('GET /api/users', res.status);
  };

  const steps = [clientCredentials, exchange, management];
  const loops = Array.from({ length: WORKERS }, async (_, worker) => {
    for (let turn = worker; more(); turn += 1) {
      const step = steps[turn % steps.length]!;
      await step().catch((err: unknown) =>
        fail(step.name, 'network', (err as Error).cause ?? (err as Error).message),
      );
    }
  });
  return {
    failures,
    exchanged,
    counts,
    requests: () => requests,
    async stop() {
      stopped = true;
      await Promise.all(loops);
      return Date.now() - started;
    },
  };
}

/** The parsed log lines of `instance` whose event is `event`. */
const events = (instance: Instance, event: string): Record<string, unknown>[] =>
  instance
    .stdout()
    .split('\n')
    .filter((line) => line.includes(`"event":"${event}"`))
    .map((line) => JSON.parse(line));

describe('rolling restart of two instances behind HAProxy, under load', () => {
  it('SIGTERM A, start A, SIGTERM B, start B: no request fails, every exchange is audited', async () => {
    const adminRes = await tokenRequest(
      baseUrl,
      { grant_type: 'client_credentials', resource: `${baseUrl}/api` },
      ADMIN,
    );
    expect(adminRes.status).toBe(200);
    const client = new pg.Client({ connectionString: database });
    await client.connect();
    let aliceId: string;
    try {
      aliceId = (await client.query(`SELECT id FROM users WHERE username = 'alice'`)).rows[0].id;
    } finally {
      await client.end();
    }
    const load = startLoad(adminRes.body.access_token, aliceId);
    const timings: Record<string, number> = {};
    const stopped: Instance[] = [];
    try {
      await new Promise((resolve) => setTimeout(resolve, 2_000)); // the load under way on both
      for (const name of ['A', 'B'] as const) {
        const old = running[name]!;
        const began = Date.now();
        old.child.kill('SIGTERM');
        await lb!.until(name, 'DOWN', 10_000); // seen by the balancer through /health/ready
        timings[`${name} out of rotation`] = Date.now() - began;
        const code = await old.exited;
        timings[`${name} drained and exited`] = Date.now() - began;
        stopped.push(old);
        expect(code, old.stderr()).toBe(0);
        running[name] = await start(name);
        await lb!.until(name, 'UP', 60_000);
        timings[`${name} back in rotation`] = Date.now() - began;
      }
      await new Promise((resolve) => setTimeout(resolve, 2_000)); // and on both again
    } finally {
      timings.load = await load.stop();
    }
    const requests = load.requests();
    console.info(
      `rolling restart: ${requests} requests, ${JSON.stringify(load.counts)}, ms ${JSON.stringify(timings)}`,
    );

    expect(load.failures, JSON.stringify(load.failures.slice(0, 20))).toEqual([]);
    expect(requests).toBeLessThanOrEqual(MAX_REQUESTS + WORKERS * 2);
    expect(load.counts.exchanges).toBeGreaterThan(20);
    expect(load.counts.clientCredentials).toBeGreaterThan(20);
    expect(load.counts.management).toBeGreaterThan(20);

    // Each stop drained: 503 at /health/ready first, then clean within the timeout, nothing cut.
    const drainServed: number[] = [];
    for (const old of stopped) {
      expect(old.stderr()).toContain('Received SIGTERM, shutting down');
      expect(events(old, 'shutdown.draining')).toEqual([
        expect.objectContaining({ reason: 'SIGTERM', drainDelay: DRAIN_DELAY }),
      ]);
      expect(events(old, 'shutdown.cut')).toEqual([]);
      expect(events(old, 'shutdown.complete')).toEqual([expect.objectContaining({ clean: true })]);
      // It kept answering while the balancer took it out (between the 503 and the closed listener).
      const [draining] = events(old, 'shutdown.draining');
      const [closing] = events(old, 'shutdown.closing');
      const during = events(old, 'http').filter(
        (line) => String(line.time) >= String(draining!.time) && String(line.time) <= String(closing!.time),
      );
      drainServed.push(during.length);
    }
    console.info(`requests answered by the draining instance after SIGTERM: ${JSON.stringify(drainServed)}`);
    expect(drainServed.reduce((sum, n) => sum + n, 0)).toBeGreaterThan(0);
    // The restarted instances took their share of the load.
    for (const name of ['A', 'B'] as const)
      expect(
        events(running[name]!, 'http').filter((line) => line.path === '/oidc/token').length,
      ).toBeGreaterThan(0);

    // Every exchange answered 200 is committed with its audit event, and no event lacks its answer.
    const reader = new pg.Client({ connectionString: database });
    await reader.connect();
    try {
      const { rows } = await reader.query<{ details: string }>(
        `SELECT details FROM audit_events WHERE type = 'token_exchange.succeeded'`,
      );
      const audited = rows.map((row) => (JSON.parse(row.details) as { jti: string }).jti);
      expect(new Set(audited).size).toBe(audited.length);
      expect([...audited].sort()).toEqual([...load.exchanged].sort());
    } finally {
      await reader.end();
    }
  }, 420_000);
});
