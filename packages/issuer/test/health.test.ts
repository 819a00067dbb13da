/**
 * The probes, on every driver: `/health/live` answers 200; `/health/ready` answers 200 with its checks
 * while the database answers, the newest migration is applied, signing keys are loaded and the
 * instance is not draining, and 503 naming the failed check otherwise (a pending migration, no signing
 * key, a closed database, a database that does not answer in time), never an error message; neither
 * needs a token nor counts against a rate limit; the database result is reused for `cacheFor`; the old
 * `/health` answers as before.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createHealth } from '../src/health.js';
import { createLogger } from '../src/logger.js';
import { createIssuer } from '../src/server.js';
import { MIGRATIONS } from '../src/storage/migrations/index.js';
import { openStore } from '../src/storage/open.js';
import { executorOf } from '../src/storage/sql/index.js';
import { DRIVERS, freshDatabase, freshPostgresUrl, openTestStore } from './helpers/drivers.js';
import { freePort, LogCapture } from './helpers/issuer.js';

const LATEST = MIGRATIONS.at(-1)!.version;
const OK = { database: 'ok', migrations: 'ok', signingKeys: 'ok', draining: 'no' };

const logger = (logs: LogCapture) =>
  createLogger({ log: { level: 'info', destination: logs, logger: undefined } });

describe.each(DRIVERS)('health probes (%s)', (driver) => {
  it('live and ready answer 200 without a token, however often; /health is unchanged', async () => {
    const port = await freePort();
    const issuer = await createIssuer({
      baseUrl: `http://127.0.0.1:${port}`,
      database: await freshDatabase(driver),
      log: { level: 'silent' },
      // The smallest allowances there are: a probe must never count against them.
      rateLimits: { window: 60, managementPerClient: 1, tokenPerClient: 1, tokenPerAddress: 1 },
    });
    try {
      await issuer.listen(port, '127.0.0.1');
      const url = `http://127.0.0.1:${port}`;
      const live = await fetch(`${url}/health/live`);
      expect(live.status).toBe(200);
      expect(live.headers.get('cache-control')).toBe('no-store');
      expect(await live.json()).toEqual({ status: 'ok' });
      const ready = await fetch(`${url}/health/ready`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: 'ready', checks: OK });
      expect(await (await fetch(`${url}/health`)).json()).toEqual({ status: 'ok' });
      // Five minutes of a probe every second from two balancers, at once.
      const statuses = await Promise.all(
        Array.from({ length: 600 }, (_, i) => fetch(`${url}/health/${i % 2 ? 'live' : 'ready'}`)),
      ).then((answers) =>
        Promise.all(
          answers.map(async (res) => {
            await res.arrayBuffer();
            return res.status;
          }),
        ),
      );
      expect(new Set(statuses)).toEqual(new Set([200]));
    } finally {
      await issuer.close();
    }
  });

  it('names the check that failed: a pending migration, no signing key, a closed database', async () => {
    const logs = new LogCapture();
    const store = await openTestStore(driver);
    let keys = 1;
    const health = createHealth({
      store,
      log: logger(logs),
      signingKeys: () => keys,
      timing: { databaseTimeout: 1_000, cacheFor: 0 },
    });
    try {
      expect(await health.ready()).toEqual({ ready: true, failed: [], checks: OK });
      keys = 0;
      expect(await health.ready()).toEqual({
        ready: false,
        failed: ['signingKeys'],
        checks: { ...OK, signingKeys: 'none' },
      });
      keys = 1;
      // As if this version's newest migration had not been applied (an older schema restored).
      await executorOf(store)!.run('DELETE FROM schema_migrations WHERE version = ?', [LATEST]);
      expect(await health.ready()).toEqual({
        ready: false,
        failed: ['migrations'],
        checks: { ...OK, migrations: 'pending' },
      });
      health.markDraining();
      expect(health.draining).toBe(true);
      expect((await health.ready()).failed).toEqual(['migrations', 'draining']);
    } finally {
      await store.close();
    }
    const closed = await health.ready();
    expect(closed).toEqual({
      ready: false,
      failed: ['database', 'draining'],
      checks: { database: 'error', migrations: 'unknown', signingKeys: 'ok', draining: 'yes' },
    });
    // Logged when the result changes (pending, then the database), with the driver's message.
    const logged = logs.lines
      .map((line) => JSON.parse(line))
      .filter((line) => line.event.startsWith('health.'));
    expect(logged.map((line) => [line.event, line.msg])).toEqual([
      [
        'health.migrations_pending',
        `readiness: the database lacks migration ${LATEST} of this version; run gatehouse-issuer migrate`,
      ],
      ['health.database_failed', 'readiness: the database query failed'],
    ]);
    expect(logged[1].err.message).toEqual(expect.any(String));
  });

  it('reuses a database result for cacheFor, and runs one check for concurrent probes', async () => {
    const store = await openTestStore(driver);
    const db = executorOf(store)!;
    let reads = 0;
    const one = db.one.bind(db);
    // Count the readiness reads (the executor is the store's own; nothing else reads this table).
    db.one = (async (sql: string, params?: unknown[]) => {
      if (sql.includes('schema_migrations')) reads += 1;
      return one(sql, params as never);
    }) as typeof db.one;
    const health = createHealth({
      store,
      log: logger(new LogCapture()),
      signingKeys: () => 1,
      timing: { databaseTimeout: 1_000, cacheFor: 60_000 },
    });
    try {
      const answers = await Promise.all(Array.from({ length: 50 }, () => health.ready()));
      expect(answers.every((answer) => answer.ready)).toBe(true);
      expect(reads).toBe(1);
      await db.run('DELETE FROM schema_migrations WHERE version = ?', [LATEST]);
      // Still the result of a moment ago: no query.
      expect((await health.ready()).ready).toBe(true);
      expect(reads).toBe(1);
    } finally {
      db.one = one;
      await store.close();
    }
  });
});

describe('health probes (postgres): a database that does not answer in time', () => {
  it('counts as a timeout after databaseTimeout, and passes again once it answers', async () => {
    const url = await freshPostgresUrl();
    const store = openStore(url);
    await store.migrate();
    const blocker = new pg.Client({ connectionString: url });
    await blocker.connect();
    const health = createHealth({
      store,
      log: logger(new LogCapture()),
      signingKeys: () => 1,
      timing: { databaseTimeout: 300, cacheFor: 0 },
    });
    try {
      // Another session holds the table: the readiness read waits for it, as for a stuck database.
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE schema_migrations IN ACCESS EXCLUSIVE MODE');
      const started = performance.now();
      expect(await health.ready()).toEqual({
        ready: false,
        failed: ['database'],
        checks: { ...OK, database: 'timeout', migrations: 'unknown' },
      });
      expect(performance.now() - started).toBeGreaterThanOrEqual(290);
      expect(performance.now() - started).toBeLessThan(2_000);
      await blocker.query('ROLLBACK');
      expect(await health.ready()).toEqual({ ready: true, failed: [], checks: OK });
    } finally {
      await blocker.end();
      await store.close();
    }
  });
});
