/**
 * What only the PostgreSQL driver does: several stores (each its own pool, as separate issuer
 * processes would have) on one database. Concurrent migrations, single use across pools (B2, B27),
 * the exclusive lock, key-change notifications (and their recovery after a lost connection), schema
 * isolation, U+0000, option validation and URL handling. The `Store` contract itself runs on every
 * driver in store.test.ts.
 */
import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isPostgresUrl, openPostgresStore } from '../../src/storage/drivers/postgres.js';
import { MIGRATIONS } from '../../src/storage/migrations/index.js';
import { describeDatabase, openStore } from '../../src/storage/open.js';
import type { SigningKeyRecord, Store } from '../../src/storage/store.js';
import { freshPostgresUrl } from '../helpers/drivers.js';

const opened: Store[] = [];
/** A store of its own (its own pool) on `url`, closed after the test. */
const open = (url: string): Store => {
  const store = openPostgresStore(url, { poolSize: 4 });
  opened.push(store);
  return store;
};
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

const signingKey = (kid: string): SigningKeyRecord => ({
  kid,
  alg: 'ES256',
  privateJwk: { kid },
  status: 'active',
  createdAt: 1,
  retiredAt: null,
  expiresAt: null,
});

describe('postgres store', () => {
  it('migrations started by several processes at once are applied exactly once', async () => {
    const url = await freshPostgresUrl();
    const results = await Promise.all([open(url).migrate(), open(url).migrate(), open(url).migrate()]);
    const applied = results.flatMap((result) => result.applied);
    expect(applied).toEqual([...new Set(applied)]);
    expect(applied).toHaveLength(MIGRATIONS.length);
    expect(new Set(results.map((result) => result.current)).size).toBe(1);
  });

  it('single use holds across processes: 20 consumes over two pools, one winner (B2, B27)', async () => {
    const url = await freshPostgresUrl();
    const [a, b] = [open(url), open(url)];
    await a.migrate();
    await a.subjectTokens.create(
      { id: 'stk_1', tokenHash: 'a'.repeat(64), userId: 'usr_1', createdBy: 'app', expiresAt: 200 },
      100,
    );
    await a.payloads.upsert('AuthorizationCode', 'c1', { jti: 'c1' }, 200, { grantId: 'g1' });
    const tokens = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).subjectTokens.consume('a'.repeat(64), 150)),
    );
    expect(tokens.filter((token) => token !== undefined)).toHaveLength(1);
    const codes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 === 0 ? a : b).payloads.consume('AuthorizationCode', 'c1', 150),
      ),
    );
    expect(codes.filter(Boolean)).toHaveLength(1);
  });

  it('exclusive sections of two processes never overlap', async () => {
    const url = await freshPostgresUrl();
    const [a, b] = [open(url), open(url)];
    await a.migrate();
    let inside = 0;
    let most = 0;
    const section = (store: Store) =>
      store.exclusive('start', async () => {
        inside++;
        most = Math.max(most, inside);
        await new Promise((resolve) => setTimeout(resolve, 10));
        inside--;
      });
    await Promise.all([section(a), section(b), section(a), section(b)]);
    expect(most).toBe(1);
  });

  it('a key change through one process is announced to the others, not to other schemas', async () => {
    const url = await freshPostgresUrl();
    const elsewhere = await freshPostgresUrl();
    const [a, b, c] = [open(url), open(url), open(elsewhere)];
    await a.migrate();
    await c.migrate();
    let seenByB = 0;
    let seenByC = 0;
    b.keys.watch(() => seenByB++);
    c.keys.watch(() => seenByC++);
    await vi.waitFor(() => expect([seenByB, seenByC]).toEqual([1, 1])); // live
    await a.keys.insertInitial(signingKey('k1'));
    await vi.waitFor(() => expect(seenByB).toBe(2));
    await a.keys.rotate(signingKey('k2'), 10, 100);
    await vi.waitFor(() => expect(seenByB).toBe(3));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(seenByC).toBe(1);
  });

  it('after the notification connection is lost it reconnects and tells listeners to re-read', async () => {
    const url = await freshPostgresUrl();
    const errors: Error[] = [];
    const store = openPostgresStore(url, { onError: (err) => errors.push(err) });
    opened.push(store);
    await store.migrate();
    let calls = 0;
    store.keys.watch(() => calls++);
    await vi.waitFor(() => expect(calls).toBe(1));
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      // The server drops the LISTEN connection (restart, failover, idle kill …).
      const killed = await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'gatehouse-issuer-notify' AND query LIKE 'LISTEN%'",
      );
      expect(killed.rowCount).toBeGreaterThan(0);
    } finally {
      await admin.end();
    }
    await vi.waitFor(() => expect(calls).toBeGreaterThanOrEqual(2), { timeout: 5_000 });
    // Announcements arrive again on the new connection.
    const before = calls;
    await open(url).keys.insertInitial(signingKey('after-reconnect'));
    await vi.waitFor(() => expect(calls).toBeGreaterThan(before), { timeout: 5_000 });
    expect(errors.length).toBeGreaterThan(0);
  });

  it('statements prepared before another process altered a table are prepared again', async () => {
    const url = await freshPostgresUrl();
    const store = open(url);
    await store.migrate();
    await store.users.create({ id: 'usr_a', username: 'alice' }, 1);
    // Every pooled connection has prepared SELECT * FROM users by now.
    await Promise.all(Array.from({ length: 8 }, () => store.users.get('usr_a')));
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query('ALTER TABLE users ADD COLUMN nickname TEXT');
    } finally {
      await admin.end();
    }
    const again = await Promise.all(Array.from({ length: 8 }, () => store.users.get('usr_a')));
    expect(again.every((user) => user?.username === 'alice')).toBe(true);
  });

  it('U+0000: lookups by such values find nothing; storing one is refused', async () => {
    const store = open(await freshPostgresUrl());
    await store.migrate();
    await store.users.create({ id: 'usr_a', username: 'alice' }, 1);
    expect(await store.users.get('usr_a\0')).toBeUndefined();
    expect(await store.users.findByLogin('alice\0')).toBeUndefined();
    expect(await store.users.delete('usr_a\0')).toBe(false);
    expect(await store.payloads.consume('AuthorizationCode', '\0', 1)).toBe(false);
    await expect(store.users.create({ id: 'usr_b', username: 'b\0' }, 1)).rejects.toThrow(TypeError);
  });

  it('a store whose database cannot be reached fails its queries, not its construction', async () => {
    const store = openPostgresStore('postgres://postgres@127.0.0.1:1/none', { connectionTimeout: 500 });
    await expect(store.ping()).rejects.toThrow();
    await store.close();
    await store.close();
  });

  it('validates its options with TypeErrors naming them', () => {
    expect(() => openPostgresStore('mysql://x')).toThrow('"url" must be a postgres://');
    expect(() => openPostgresStore('postgres://x', { poolSize: 1 })).toThrow('"poolSize"');
    expect(() => openPostgresStore('postgres://x', { connectionTimeout: 0 })).toThrow('"connectionTimeout"');
    expect(() => openPostgresStore('postgres://x', { idleTimeout: 1.5 })).toThrow('"idleTimeout"');
    expect(() => openPostgresStore('postgres://x', { onError: 'log' as never })).toThrow('"onError"');
  });

  it('openStore picks the driver by URL; describeDatabase hides the password', async () => {
    expect(isPostgresUrl('postgresql://db/x')).toBe(true);
    expect(isPostgresUrl('./postgres.sqlite')).toBe(false);
    const sqlite = openStore(':memory:');
    expect(sqlite.driver).toBe('sqlite');
    await sqlite.close();
    const postgres = openStore('postgres://db/x');
    expect(postgres.driver).toBe('postgres');
    await postgres.close();
    expect(describeDatabase('postgres://app:s3cret@db:5432/gatehouse?sslmode=require')).toBe(
      'postgres://app:***@db:5432/gatehouse',
    );
    expect(describeDatabase('/var/lib/gatehouse/issuer.sqlite')).toBe('/var/lib/gatehouse/issuer.sqlite');
  });
});
