/**
 * Deliveries are queued in the database: an issuer stopped while a delivery waits for its retry loses
 * nothing; the issuer started next on the same database (a SQLite file, or a PostgreSQL schema) delivers it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/storage/open.js';
import { verifyWebhookSignature } from '../../src/webhooks/signature.js';
import { DRIVERS, freshDatabase } from '../helpers/drivers.js';
import { loadWorld } from '../helpers/fixtures.js';
import { adminToken, api, startIssuer, type TestIssuer } from '../helpers/issuer.js';
import { eventually, startWebhookReceiver } from '../helpers/webhook-receiver.js';

const admin = { clientId: 'restart-admin', clientSecret: 'r'.repeat(40) };

describe.each(DRIVERS)('%s', (driver) => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-webhooks-'));
  const running: TestIssuer[] = [];
  afterAll(async () => {
    await Promise.all(running.map((t) => t.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('a restart of the issuer mid-retry loses nothing', async () => {
    const database = driver === 'sqlite' ? join(dir, 'issuer.sqlite') : await freshDatabase(driver);
    const receiver = await startWebhookReceiver((n) => (n === 1 ? 503 : 204));
    try {
      const first = await startIssuer(driver, { database, admin });
      running.push(first);
      await loadWorld(first);
      const token = await adminToken(first);
      const hook = await api(first, token, 'POST', '/webhooks', {
        url: receiver.url,
        events: ['subject_token.created'],
      });
      const alice = (await first.issuer.store.users.findByLogin('alice'))!.id;
      expect((await api(first, token, 'POST', '/subject-tokens', { userId: alice })).status).toBe(201);

      await receiver.until((received) => received.length === 1);
      // The receiver counts the request before it answers: stop once the issuer has recorded the answer
      // (stopping mid-attempt hands the delivery back uncounted, which is another test).
      await eventually(
        () => first.issuer.store.webhooks.listDeliveries(hook.body.id, { page: 1, pageSize: 10 }),
        (page) => page.items[0]?.lastStatus === 503,
      );
      await first.close();
      // Stopped between the failed attempt and its retry: the delivery waits in the database.
      const store = openStore(database);
      try {
        const waiting = await store.webhooks.listDeliveries(hook.body.id, { page: 1, pageSize: 10 });
        expect(waiting.items).toHaveLength(1);
        expect(waiting.items[0]).toMatchObject({
          status: 'pending',
          attempts: 1,
          lastStatus: 503,
          lastError: 'http 503',
        });
      } finally {
        await store.close();
      }
      const second = await startIssuer(driver, { database, admin });
      running.push(second);

      await receiver.until((received) => received.some((delivery) => delivery.status === 204));
      expect(receiver.received.map((delivery) => delivery.status)).toEqual([503, 204]);
      const [before, after] = receiver.received.map((delivery) =>
        verifyWebhookSignature({
          secret: hook.body.secret,
          body: delivery.body,
          header: delivery.headers['gatehouse-signature'],
        }),
      );
      expect(after!.id).toBe(before!.id);
      const settled = await eventually(
        () => second.issuer.store.webhooks.listDeliveries(hook.body.id, { page: 1, pageSize: 10 }),
        (page) => page.items[0]?.status !== 'pending',
      );
      expect(settled.items[0]).toMatchObject({ status: 'delivered', attempts: 2, lastStatus: 204 });
    } finally {
      await receiver.close();
    }
  });
});
