/**
 * F16 on the delivery loop, a real store and real loopback receivers: endpoints that never answer do
 * not delay another endpoint's deliveries (attempts run independently, the loop never waits for one);
 * an endpoint's deliveries in flight are bounded, across two processes on one PostgreSQL database too;
 * an endpoint failing for `disableAfter` is disabled with an audit event, its pending deliveries given
 * up and no new ones queued, while a success clears its failing state.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/config/defaults.js';
import { openStore } from '../../src/storage/open.js';
import type { Store } from '../../src/storage/store.js';
import { type DispatcherTiming, startWebhookDispatcher } from '../../src/webhooks/dispatcher.js';
import { createSecretBox } from '../../src/webhooks/secret-box.js';
import { createTargetPolicy } from '../../src/webhooks/targets.js';
import { DRIVERS, freshDatabase } from '../helpers/drivers.js';
import { LogCapture } from '../helpers/issuer.js';
import { eventually } from '../helpers/webhook-receiver.js';

const LOOPBACK = createTargetPolicy({ baseUrl: 'http://127.0.0.1:3001', allowedPrivateTargets: [] });

/** Short polls; attempts that would outlive every test (a hanging receiver stays in flight). */
const timing: DispatcherTiming = {
  ...DEFAULTS.webhooks,
  pollInterval: 50,
  timeout: 60_000,
  claimMargin: 1_000,
  retryDelay: 100,
  maxRetryDelay: 200,
};

describe.each(DRIVERS)('%s', (driver) => {
  const cleanup: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  /** A receiver whose answers `handler` decides (never answering is fine); its requests are recorded. */
  async function receiver(handler: (req: IncomingMessage, res: ServerResponse) => void) {
    const requests: Array<{ path: string; eventId: string; at: number }> = [];
    let open = 0;
    let maxOpen = 0;
    const server = createServer((req, res) => {
      requests.push({ path: req.url!, eventId: String(req.headers['gatehouse-event-id']), at: Date.now() });
      open += 1;
      maxOpen = Math.max(maxOpen, open);
      res.on('close', () => {
        open -= 1;
      });
      handler(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanup.push(
      () =>
        new Promise((resolve) => {
          server.closeAllConnections();
          server.close(resolve);
        }),
    );
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return { url, requests, open: () => open, maxOpen: () => maxOpen };
  }

  async function database() {
    const url = await freshDatabase(driver);
    const store = openStore(url);
    await store.migrate();
    cleanup.push(() => store.close());
    return { url, store };
  }

  function dispatch(store: Store, overrides: Partial<DispatcherTiming> = {}) {
    const logs = new LogCapture();
    const dispatcher = startWebhookDispatcher({
      store,
      log: pino(logs),
      box: createSecretBox(store),
      policy: LOOPBACK,
      timing: { ...timing, ...overrides },
    });
    cleanup.push(() => dispatcher.close());
    return logs;
  }

  const now = () => Math.floor(Date.now() / 1000);
  let n = 0;
  const endpoint = async (store: Store, url: string) => {
    const id = `whk_${++n}`;
    await store.webhooks.createEndpoint(
      {
        id,
        url,
        description: '',
        events: ['impersonation.ended'],
        secret: await createSecretBox(store).seal('whsec_isolation', id),
      },
      now(),
    );
    return id;
  };
  const emit = (store: Store) =>
    store.auditEvents.record({ id: `evt_${++n}`, type: 'impersonation.ended', userId: 'usr_1' }, now());

  it('F16: thirty endpoints that never answer do not delay a healthy endpoint beyond a second', async () => {
    const hanging = await receiver(() => undefined);
    const healthy = await receiver((_req, res) => res.writeHead(204).end());
    const { store } = await database();
    for (let i = 1; i <= 30; i++) await endpoint(store, `${hanging.url}/hang/${i}`);
    await endpoint(store, `${healthy.url}/ok`);
    dispatch(store);

    // The first event: all thirty hanging attempts are under way at once, and the healthy one is done.
    const first = await emit(store);
    await eventually(
      async () => ({ hanging: hanging.open(), healthy: healthy.requests.length }),
      (state) => state.hanging === 30 && state.healthy === 1,
    );
    expect(new Set(hanging.requests.map((request) => request.path)).size).toBe(30);
    expect(healthy.requests[0]!.eventId).toBe(first.id);

    // The next event reaches the healthy endpoint at once, while the thirty still hang.
    const started = Date.now();
    const second = await emit(store);
    await eventually(
      async () => healthy.requests.find((request) => request.eventId === second.id),
      (request) => request !== undefined,
    );
    const arrived = healthy.requests.find((request) => request.eventId === second.id)!.at;
    expect(arrived - started).toBeLessThan(1_000);
    expect(hanging.open()).toBeGreaterThanOrEqual(30);
  });

  it('F16: an endpoint never has more than `concurrency` deliveries in flight, across two processes', async () => {
    let answer = false;
    const waiting: ServerResponse[] = [];
    const slow = await receiver((_req, res) => {
      if (answer) res.writeHead(204).end();
      else waiting.push(res);
    });
    const { url, store } = await database();
    const id = await endpoint(store, `${slow.url}/slow`);
    for (let i = 0; i < 10; i++) await emit(store);
    dispatch(store, { concurrency: 2 });
    // On PostgreSQL a second process on the same database: the bound is the database's, not each one's.
    if (driver === 'postgres') {
      const other = openStore(url);
      cleanup.push(() => other.close());
      dispatch(other, { concurrency: 2 });
    }
    await eventually(
      async () => slow.open(),
      (open) => open === 2,
    );
    // Many polls later (of both processes), still two: the other eight wait in the queue, unclaimed.
    await new Promise((resolve) => setTimeout(resolve, 20 * timing.pollInterval));
    expect(slow.requests).toHaveLength(2);
    const queued = await store.webhooks.listDeliveries(id, { page: 1, pageSize: 20 });
    expect(queued.items.filter((delivery) => delivery.attempts === 0)).toHaveLength(8);

    answer = true;
    for (const res of waiting) res.writeHead(204).end();
    const settled = await eventually(
      () => store.webhooks.listDeliveries(id, { page: 1, pageSize: 20 }),
      (page) => page.items.every((delivery) => delivery.status === 'delivered'),
    );
    expect(settled.total).toBe(10);
    expect(slow.maxOpen()).toBe(2);
  });

  it('F16: an endpoint failing for disableAfter is disabled and reported; a success clears the failing state', async () => {
    const failing = await receiver((_req, res) => res.writeHead(503).end());
    let recovered = false;
    const flaky = await receiver((_req, res) => res.writeHead(recovered ? 204 : 500).end());
    const { store } = await database();
    const broken = await endpoint(store, `${failing.url}/down`);
    const recovering = await endpoint(store, `${flaky.url}/flaky`);
    const logs = dispatch(store, { disableAfter: 1, maxAttempts: 100 });
    await emit(store);

    // The flaky one fails, then answers: it is no longer failing.
    await eventually(
      () => store.webhooks.getEndpoint(recovering),
      (record) => record?.failingSince !== null,
    );
    recovered = true;
    await eventually(
      () => store.webhooks.getEndpoint(recovering),
      (record) => record?.failingSince === null,
    );

    // The broken one keeps failing: once for a second or more, it is disabled.
    const disabled = await eventually(
      () => store.webhooks.getEndpoint(broken),
      (record) => record?.disabledAt !== null,
      15_000,
    );
    expect(disabled!.disabledAt! - disabled!.failingSince!).toBeGreaterThanOrEqual(1);
    const events = await store.auditEvents.list({ type: 'webhook.disabled' }, { page: 1, pageSize: 10 });
    expect(events.items).toHaveLength(1);
    expect(events.items[0]).toMatchObject({
      reason: 'endpoint_failing',
      details: { webhookId: broken, failingSince: new Date(disabled!.failingSince! * 1000).toISOString() },
    });
    // The store shows the outcome before the dispatcher logs it (settled first, then logged): wait for the line.
    await expect.poll(() => logs.text).toContain('webhook_endpoint_disabled');
    // Its pending delivery is given up; nothing more is sent or queued for it.
    const given = await eventually(
      () => store.webhooks.listDeliveries(broken, { page: 1, pageSize: 10 }),
      (page) => page.items.every((delivery) => delivery.status === 'failed'),
    );
    expect(given.items[0]!.lastError).toMatch(/^(endpoint disabled|http 503)$/);
    const sent = failing.requests.length;
    await emit(store);
    expect((await store.webhooks.listDeliveries(broken, { page: 1, pageSize: 10 })).total).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 10 * timing.pollInterval));
    expect(failing.requests.length).toBe(sent);
    expect((await store.webhooks.getEndpoint(recovering))!.disabledAt).toBeNull();

    // Enabled again: no longer failing, and the next event is queued for it.
    const enabled = await store.webhooks.enableEndpoint(broken, now());
    expect(enabled).toMatchObject({ disabledAt: null, failingSince: null });
    await emit(store);
    expect((await store.webhooks.listDeliveries(broken, { page: 1, pageSize: 10 })).total).toBe(2);
  });
});
