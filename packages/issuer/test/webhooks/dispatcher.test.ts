/**
 * The delivery loop on a real store and a real loopback receiver, with short timings: an attempt that
 * outlives its timeout fails and is retried, a redirect is not followed, a delivery is given up after
 * `maxAttempts`, and closing cuts an attempt short and hands it back to the queue (not counted).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/config/defaults.js';
import type { Store } from '../../src/storage/store.js';
import { type DispatcherTiming, retryDelay, startWebhookDispatcher } from '../../src/webhooks/dispatcher.js';
import { createSecretBox } from '../../src/webhooks/secret-box.js';
import { verifyWebhookSignature } from '../../src/webhooks/signature.js';
import { createTargetPolicy } from '../../src/webhooks/targets.js';
import { DRIVERS, openTestStore } from '../helpers/drivers.js';
import { LogCapture } from '../helpers/issuer.js';
import { eventually } from '../helpers/webhook-receiver.js';

const timing: DispatcherTiming = {
  ...DEFAULTS.webhooks,
  timeout: 300,
  retryDelay: 100,
  maxRetryDelay: 200,
  pollInterval: 25,
  maxAttempts: 3,
};

/** The rules of an issuer on loopback: the loopback receivers of these tests may be reached. */
const LOOPBACK = createTargetPolicy({ baseUrl: 'http://127.0.0.1:3001', allowedPrivateTargets: [] });

describe('retryDelay', () => {
  it('doubles from retryDelay up to maxRetryDelay', () => {
    expect([1, 2, 3, 4, 13, 14, 20].map((n) => retryDelay(n, DEFAULTS.webhooks))).toEqual([
      1_000, 2_000, 4_000, 8_000, 3_600_000, 3_600_000, 3_600_000,
    ]);
  });
});

describe.each(DRIVERS)('%s', (driver) => {
  const cleanup: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  /** Another database (its own webhook key). */
  async function foreignStore(): Promise<Store> {
    const other = await openTestStore(driver);
    cleanup.push(() => other.close());
    return other;
  }

  /** A store with one endpoint at a receiver answering with `handler`, one queued event, and the loop running. */
  async function setUp(handler: Parameters<typeof createServer>[1], options: { foreignKey?: boolean } = {}) {
    const server: Server = createServer(handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanup.push(
      () =>
        new Promise((resolve) => {
          server.closeAllConnections();
          server.close(resolve);
        }),
    );
    const store: Store = await openTestStore(driver);
    cleanup.push(() => store.close());
    const box = createSecretBox(store);
    const now = Math.floor(Date.now() / 1000);
    await store.webhooks.createEndpoint(
      {
        id: 'whk_test',
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
        description: '',
        events: ['impersonation.ended'],
        secret: await (options.foreignKey ? createSecretBox(await foreignStore()) : box).seal(
          'whsec_loop',
          'whk_test',
        ),
      },
      now,
    );
    await store.auditEvents.record({ id: 'evt_loop', type: 'impersonation.ended', userId: 'usr_1' }, now);
    const logs = new LogCapture();
    const dispatcher = startWebhookDispatcher({ store, log: pino(logs), box, timing, policy: LOOPBACK });
    cleanup.push(() => dispatcher.close());
    const delivery = async () =>
      (await store.webhooks.listDeliveries('whk_test', { page: 1, pageSize: 1 })).items[0]!;
    return { store, dispatcher, delivery, logs };
  }

  it('an attempt that outlives the timeout fails, is retried, and is given up after maxAttempts', async () => {
    let requests = 0;
    const { delivery, logs } = await setUp(() => {
      requests += 1; // never answers
    });
    const failed = await eventually(delivery, (d) => d.status === 'failed', 10_000);
    expect(failed).toMatchObject({
      attempts: 3,
      lastStatus: null,
      lastError: 'timeout',
      deliveredAt: null,
    });
    expect(requests).toBe(3);
    // The store shows the outcome before the dispatcher logs it (settled first, then logged): wait for the line.
    await expect.poll(() => logs.text).toContain('webhook_failed');
    expect(logs.text).not.toContain('whsec_loop');
  });

  it('a redirect is not followed: it is a failed attempt', async () => {
    const followed: string[] = [];
    const { delivery } = await setUp((req, res) => {
      if (req.url === '/elsewhere') followed.push(req.url);
      res.writeHead(302, { location: '/elsewhere' }).end();
    });
    const settled = await eventually(delivery, (d) => d.attempts >= 1 && d.lastStatus !== null);
    expect(settled).toMatchObject({ lastStatus: 302, lastError: 'http 302' });
    expect(followed).toEqual([]);
  });

  it('each attempt is signed with the endpoint secret over the exact body', async () => {
    const seen: Array<{ header: string; body: string }> = [];
    const { delivery } = await setUp((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        seen.push({
          header: String(req.headers['gatehouse-signature']),
          body: Buffer.concat(chunks).toString(),
        });
        res.writeHead(200).end();
      });
    });
    await eventually(delivery, (d) => d.status === 'delivered');
    expect(verifyWebhookSignature({ secret: 'whsec_loop', ...seen[0]! })).toMatchObject({
      id: 'evt_loop',
      type: 'impersonation.ended',
      userId: 'usr_1',
    });
  });

  it('close() cuts an attempt short and hands the delivery back, due at once and not counted', async () => {
    let arrived = 0;
    const { dispatcher, delivery } = await setUp(() => {
      arrived += 1; // never answers
    });
    await eventually(
      async () => arrived,
      (n) => n === 1,
    );
    const started = Date.now();
    await dispatcher.close();
    expect(Date.now() - started).toBeLessThan(timing.timeout);
    const handedBack = await delivery();
    expect(handedBack).toMatchObject({
      status: 'pending',
      attempts: 0,
      lastError: 'issuer stopped',
      claimedUntilMs: 0,
    });
    expect(handedBack.nextAttemptMs).toBeLessThanOrEqual(Date.now());
  });

  it('a secret sealed under another database key is a failed attempt, given up after maxAttempts', async () => {
    let requests = 0;
    const { delivery } = await setUp(
      (_req, res) => {
        requests += 1;
        res.writeHead(204).end();
      },
      { foreignKey: true },
    );
    const failed = await eventually(delivery, (d) => d.status === 'failed', 10_000);
    expect(failed).toMatchObject({
      attempts: 3,
      lastError: 'the signing secret cannot be opened with this database key',
    });
    expect(requests).toBe(0);
  });
});
