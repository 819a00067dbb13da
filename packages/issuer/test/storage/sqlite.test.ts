/**
 * What only the SQLite driver does: a file under a created directory that persists across opens, and
 * the single-node flag. The `Store` contract itself runs on every driver in store.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/storage/drivers/sqlite.js';
import { MIGRATIONS } from '../../src/storage/migrations/index.js';

describe('sqlite store', () => {
  it('migrates once and persists to a file in a created directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-store-'));
    try {
      const path = join(dir, 'nested', 'db.sqlite');
      const file = openSqliteStore(path);
      expect((await file.migrate()).applied).toEqual(MIGRATIONS.map((migration) => migration.version));
      expect(file.multiNode).toBe(false);
      await file.users.create({ id: 'usr_1', username: 'persisted' }, 1);
      await file.close();
      const again = openSqliteStore(path);
      expect((await again.migrate()).applied).toEqual([]);
      expect((await again.users.get('usr_1'))?.username).toBe('persisted');
      await again.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses an empty path', () => {
    expect(() => openSqliteStore('')).toThrow(TypeError);
  });
});
