/**
 * Following configuration changes: which statements count, when a transaction's writes count, and the
 * PostgreSQL triggers that announce changes made by anyone (migration 0009) covering every table.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CONFIG_TABLES, followConfigChanges, writesConfig } from '../../src/storage/config-changes.js';
import configNotify from '../../src/storage/migrations/0009-config-notify.js';
import { executorOf } from '../../src/storage/sql/index.js';
import type { Store } from '../../src/storage/store.js';
import { openTestStore } from '../helpers/drivers.js';

describe('writesConfig', () => {
  it.each([
    'INSERT INTO applications (id) VALUES (?)',
    'UPDATE roles SET name = ? WHERE id = ?',
    'DELETE FROM role_scopes WHERE role_id = ?',
    'delete from  user_roles where user_id = ?',
    'TRUNCATE TABLE application_roles',
    'TRUNCATE ONLY scopes',
    'WITH gone AS (DELETE FROM resources WHERE id = ? RETURNING id) SELECT count(*) FROM gone',
  ])('counts %s', (sql) => {
    expect(writesConfig(sql)).toBe(true);
  });

  it.each([
    'SELECT * FROM applications WHERE id = ?',
    'INSERT INTO audit_events (id) VALUES (?)',
    'UPDATE users SET name = ?',
    'INSERT INTO applications_archive (id) VALUES (?)',
    'UPDATE subject_tokens SET consumed_at = ? WHERE token_hash = ?',
  ])('does not count %s', (sql) => {
    expect(writesConfig(sql)).toBe(false);
  });
});

describe('followConfigChanges', () => {
  let store: Store;
  afterEach(() => store.close());

  const follow = async (stamp: () => number | undefined = () => 0) => {
    store = await openTestStore('sqlite');
    return followConfigChanges(executorOf(store)!, { stamp });
  };

  it('a configuration write changes the version once it has run; reads and other writes do not', async () => {
    const { db, changes } = await follow();
    const start = changes.version();
    await db.many('SELECT * FROM applications');
    await db.run('INSERT INTO settings (key, value) VALUES (?, ?)', ['k', 'v']);
    expect(changes.version()).toBe(start);
    await db.run('DELETE FROM roles WHERE id = ?', ['rol_none']);
    expect(changes.version()).not.toBe(start);
  });

  it('a transaction that wrote configuration changes the version again when it has ended', async () => {
    const { db, changes } = await follow();
    let inside: string | undefined;
    await db.transaction(async (tx) => {
      await tx.run('DELETE FROM scopes WHERE id = ?', ['scp_none']);
      inside = changes.version();
    });
    expect(inside).toBeDefined();
    expect(changes.version()).not.toBe(inside);
    const after = changes.version();
    await db.transaction(async (tx) => {
      await tx.many('SELECT 1');
    });
    expect(changes.version()).toBe(after);
  });

  it('a failed or rolled-back write still counts (never a missed change)', async () => {
    const { db, changes } = await follow();
    const start = changes.version();
    await expect(
      db.transaction(async (tx) => {
        await tx.run('DELETE FROM applications WHERE id = ?', ['app_none']);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(changes.version()).not.toBe(start);
  });

  it('follows the external stamp, and has no version while the driver cannot tell', async () => {
    let stamp: number | undefined = 1;
    const { changes } = await follow(() => stamp);
    const first = changes.version();
    stamp = 2;
    expect(changes.version()).not.toBe(first);
    stamp = undefined;
    expect(changes.version()).toBeUndefined();
  });
});

describe('migration 0009', () => {
  it('announces a change of every configuration table on PostgreSQL, and adds nothing to SQLite', () => {
    for (const table of CONFIG_TABLES)
      expect(configNotify.postgres).toMatch(
        new RegExp(
          `CREATE TRIGGER ${table}_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${table}\\s`,
        ),
      );
    expect(configNotify.postgres.match(/CREATE TRIGGER/g)).toHaveLength(CONFIG_TABLES.length);
    expect(configNotify.sqlite.trim()).toBe('');
  });
});
