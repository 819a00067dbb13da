/**
 * `issuer.shutdown()`, on every driver, with real connections:
 *
 * - draining: `/health/ready` answers 503 naming `draining` at once, a request on a kept-alive
 *   connection is answered with `Connection: close`, and the issuer keeps serving for `drainDelay`;
 * - then new connections are refused, while a request in flight is still answered (with
 *   `Connection: close`); the result is clean, the store closed;
 * - a webhook delivery under way finishes (delivered) before the shutdown ends;
 * - past `drainTimeout`, the request in flight is cut and the delivery under way handed back to the
 *   queue (pending, this attempt not counted), and a `shutdown.cut` log line says so;
 * - `close()` during a shutdown cuts it short.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Issuer, IssuerConfig } from '../src/index.js';
import { createIssuer } from '../src/server.js';
import { openStore } from '../src/storage/open.js';
import { DRIVERS, type Driver, freshPostgresUrl } from './helpers/drivers.js';
import { adminToken, api, freePort, LogCapture } from './helpers/issuer.js';
import { startWebhookReceiver } from './helpers/webhook-receiver.js';

const ADMIN = { clientId: 'drain-admin', clientSecret: 'd'.repeat(40) };
const dir = mkdtempSync(join(tmpdir(), 'gatehouse-shutdown-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Started {
  readonly issuer: Issuer;
  readonly url: string;
  readonly port: number;
  readonly database: string;
  readonly logs: LogCapture;
  /** Parsed log lines of `event`. */
  events(event: string): Record<string, unknown>[];
}

let files = 0;
async function start(driver: Driver, shutdown: IssuerConfig['shutdown']): Promise<Started> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const database = driver === 'sqlite' ? join(dir, `issuer-${++files}.sqlite`) : await freshPostgresUrl();
  const logs = new LogCapture();
  const issuer = await createIssuer({
    baseUrl: url,
    database,
    admin: ADMIN,
    shutdown,
    log: { destination: logs },
  });
  await issuer.listen(port, '127.0.0.1');
  const events = (event: string) =>
    logs.lines.map((line) => JSON.parse(line)).filter((line) => line.event === event);
  return { issuer, url, port, database, logs, events };
}

/**
 * A token request whose body arrives in two parts: in flight from the first until `finish()` sends the
 * rest. `response` is everything the issuer sent until it closed the connection.
 */
async function slowTokenRequest(port: number) {
  const body = new URLSearchParams({
    grant_type: 'client_credentials',
    resource: `http://127.0.0.1:${port}/api`,
  }).toString();
  const basic = Buffer.from(`${ADMIN.clientId}:${ADMIN.clientSecret}`).toString('base64');
  const socket: Socket = connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  let text = '';
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  const response = new Promise<string>((resolve) => socket.once('close', () => resolve(text)));
  socket.write(
    `POST /oidc/token HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Basic ${basic}\r\n` +
      `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
  );
  return { response, finish: () => socket.write(body.slice(10)), socket };
}

/** GET `path` on `agent` (keep-alive); resolves to the status, headers and body. */
function get(port: number, path: string, agent: Agent) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
    (resolve, reject) => {
      request({ host: '127.0.0.1', port, path, agent }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => {
          body += chunk.toString('utf8');
        });
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      })
        .on('error', reject)
        .end();
    },
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A webhook receiver that holds each delivery until `release()`; `arrived` resolves at the first. */
async function heldReceiver() {
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let arrived: () => void = () => {};
  const first = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  const receiver = await startWebhookReceiver(async () => {
    arrived();
    await released;
    return 204;
  });
  return { receiver, arrived: first, release };
}

/** Register a webhook for `subject_token.created` and cause one; resolves to the webhook's id. */
async function oneDelivery(t: Started, receiverUrl: string): Promise<string> {
  await t.issuer.seed({ users: [{ username: 'alice', password: 'correct horse battery' }] });
  const token = await adminToken({ baseUrl: t.url, admin: ADMIN });
  const hook = await api({ baseUrl: t.url }, token, 'POST', '/webhooks', {
    url: receiverUrl,
    events: ['subject_token.created'],
  });
  expect(hook.status).toBe(201);
  const alice = (await t.issuer.store.users.findByLogin('alice'))!.id;
  expect((await api({ baseUrl: t.url }, token, 'POST', '/subject-tokens', { userId: alice })).status).toBe(
    201,
  );
  return hook.body.id;
}

async function deliveriesOf(database: string, webhookId: string) {
  const store = openStore(database);
  try {
    return (await store.webhooks.listDeliveries(webhookId, { page: 1, pageSize: 10 })).items;
  } finally {
    await store.close();
  }
}

describe.each(DRIVERS)('issuer.shutdown() (%s)', (driver) => {
  it('drains: ready 503, Connection: close, serving for drainDelay, then in-flight requests answered', async () => {
    const t = await start(driver, { drainDelay: 1, drainTimeout: 20 });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const before = await get(t.port, '/health/ready', agent);
      expect(before.status).toBe(200);
      expect(before.headers.connection).toBe('keep-alive');
      const slow = await slowTokenRequest(t.port);

      const started = performance.now();
      const done = t.issuer.shutdown('test');
      // At once, on the kept-alive connection: not ready, and this connection ends after the answer.
      const draining = await get(t.port, '/health/ready', agent);
      expect(draining.status).toBe(503);
      expect(draining.headers.connection).toBe('close');
      expect(JSON.parse(draining.body)).toEqual({
        status: 'unavailable',
        failed: ['draining'],
        checks: { database: 'ok', migrations: 'ok', signingKeys: 'ok', draining: 'yes' },
      });
      // Still serving new connections during the delay (the balancer has not noticed yet).
      const live = await get(t.port, '/health/live', agent);
      expect([live.status, live.headers.connection]).toEqual([200, 'close']);
      expect((await get(t.port, '/health', agent)).status).toBe(200);

      // After the delay no connection is accepted…
      await sleep(1_300);
      await expect(fetch(`${t.url}/health/live`)).rejects.toThrow();
      expect(t.events('shutdown.closing')).toEqual([
        expect.objectContaining({ requests: 1, webhookDeliveries: 0 }),
      ]);
      // …while the request in flight is answered, and its connection closed.
      slow.finish();
      const response = await slow.response;
      expect(response).toMatch(/^HTTP\/1\.1 200 /);
      expect(response.toLowerCase()).toContain('\r\nconnection: close\r\n');
      expect(response).toContain('"access_token"');

      const result = await done;
      expect(result.clean).toBe(true);
      expect(result.cut).toEqual({ requests: 0, webhookDeliveries: 0 });
      expect(result.ms).toBeGreaterThanOrEqual(1_000);
      expect(performance.now() - started).toBeLessThan(10_000);
      expect(await t.issuer.shutdown()).toBe(result);
      await expect(t.issuer.store.ping()).rejects.toThrow();
      expect(t.events('shutdown.draining')).toEqual([
        expect.objectContaining({ reason: 'test', drainDelay: 1, drainTimeout: 20 }),
      ]);
      expect(t.events('shutdown.complete')).toEqual([expect.objectContaining({ clean: true })]);
      expect(t.events('shutdown.cut')).toEqual([]);
    } finally {
      agent.destroy();
      await t.issuer.close();
    }
  });

  it('a webhook delivery under way finishes before the shutdown ends', async () => {
    const held = await heldReceiver();
    const t = await start(driver, { drainDelay: 0, drainTimeout: 20 });
    try {
      const webhookId = await oneDelivery(t, held.receiver.url);
      await held.arrived;
      const done = t.issuer.shutdown();
      // The attempt holds the shutdown open (nothing else is in flight: the requests above are done).
      await sleep(500);
      expect(t.events('shutdown.closing')).toEqual([
        expect.objectContaining({ requests: 0, webhookDeliveries: 1 }),
      ]);
      expect(t.events('shutdown.complete')).toEqual([]);
      held.release();
      const result = await done;
      expect(result).toMatchObject({ clean: true, cut: { requests: 0, webhookDeliveries: 0 } });
      expect(await deliveriesOf(t.database, webhookId)).toEqual([
        expect.objectContaining({ status: 'delivered', attempts: 1, lastStatus: 204 }),
      ]);
    } finally {
      held.release();
      await t.issuer.close();
      await held.receiver.close();
    }
  });

  it('past drainTimeout: the request is cut, the delivery handed back, and the log says so', async () => {
    const held = await heldReceiver();
    const t = await start(driver, { drainDelay: 0, drainTimeout: 1 });
    try {
      const webhookId = await oneDelivery(t, held.receiver.url);
      await held.arrived;
      const slow = await slowTokenRequest(t.port); // never finished
      const started = performance.now();
      const result = await t.issuer.shutdown('SIGTERM');
      const took = performance.now() - started;
      expect(result).toMatchObject({ clean: false, cut: { requests: 1, webhookDeliveries: 1 } });
      expect(took).toBeGreaterThanOrEqual(990);
      expect(took).toBeLessThan(4_000);
      // The connection was closed without an answer.
      expect(await slow.response).toBe('');
      const [cut] = t.events('shutdown.cut');
      expect(cut).toMatchObject({
        level: 50,
        cause: 'drainTimeout',
        requests: 1,
        webhookDeliveries: 1,
        msg: 'shutdown cut after 1 s (shutdown.drainTimeout): closed 1 request still in flight, handed 1 webhook delivery back to the queue',
      });
      // Back in the queue for any instance, due at once, this attempt not counted.
      expect(await deliveriesOf(t.database, webhookId)).toEqual([
        expect.objectContaining({ status: 'pending', attempts: 0, lastError: 'issuer stopped' }),
      ]);
    } finally {
      held.release();
      await t.issuer.close();
      await held.receiver.close();
    }
  });

  it('close() during a shutdown cuts it short', async () => {
    const t = await start(driver, { drainDelay: 60, drainTimeout: 120 });
    try {
      const done = t.issuer.shutdown();
      await sleep(100);
      const started = performance.now();
      await t.issuer.close();
      expect(performance.now() - started).toBeLessThan(3_000);
      expect(await done).toMatchObject({ clean: false, cut: { requests: 0, webhookDeliveries: 0 } });
      expect(t.events('shutdown.cut')[0]).toMatchObject({
        cause: 'close',
        msg: 'shutdown cut short by close() or a second signal: closed 0 requests still in flight, handed 0 webhook deliveries back to the queue',
      });
      await expect(t.issuer.store.ping()).rejects.toThrow();
    } finally {
      await t.issuer.close();
    }
  });
});
