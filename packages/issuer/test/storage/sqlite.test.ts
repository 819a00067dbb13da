/**
 * What only the SQLite driver does: a file under a created directory that persists across opens, the
 * single-node flag, and a private data directory (created 0700 with the database 0600, a warning for
 * one that group or others may use, errors naming the path). The `Store` contract itself runs on every
 * driver in store.test.ts.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { DatabaseFileError } from '../../src/errors.js';
import { createIssuer } from '../../src/index.js';
import { openSqliteStore } from '../../src/storage/drivers/sqlite.js';
import type { DatabaseFileWarning } from '../../src/storage/drivers/sqlite-files.js';
import { MIGRATIONS } from '../../src/storage/migrations/index.js';
import { LogCapture } from '../helpers/issuer.js';

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

describe('sqlite data directory', () => {
  let dir: string;
  const mode = (path: string) => statSync(path).mode & 0o777;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gatehouse-files-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a fresh start creates the directory 0700 and the database, -wal and -shm files 0600, silently', async () => {
    const data = join(dir, 'data', 'issuer');
    const path = join(data, 'issuer.sqlite');
    const warnings: DatabaseFileWarning[] = [];
    const store = openSqliteStore(path, { onWarning: (warning) => warnings.push(warning) });
    try {
      await store.migrate();
      await store.users.create({ id: 'usr_1', username: 'alice' }, 1);
      expect(mode(join(dir, 'data'))).toBe(0o700);
      expect(mode(data)).toBe(0o700);
      for (const file of [path, `${path}-wal`, `${path}-shm`]) {
        expect(existsSync(file), file).toBe(true);
        expect(mode(file), file).toBe(0o600);
      }
    } finally {
      await store.close();
    }
    expect(warnings).toEqual([]);
    await openSqliteStore(path, { onWarning: (warning) => warnings.push(warning) }).close();
    expect(warnings).toEqual([]);
  });

  it('an existing directory or database open to group or others is a warning in the issuer log', async () => {
    const data = join(dir, 'shared');
    mkdirSync(data);
    chmodSync(data, 0o755);
    writeFileSync(join(data, 'issuer.sqlite'), '');
    chmodSync(join(data, 'issuer.sqlite'), 0o644);
    const logs = new LogCapture();
    const issuer = await createIssuer({
      baseUrl: 'http://127.0.0.1:1',
      dataDir: data,
      passwords: { scryptCost: 1024 },
      log: { level: 'info', destination: logs },
    });
    await issuer.close();
    const warnings = logs.lines
      .map((line) => JSON.parse(line))
      .filter((line) => line.event === 'store.file_mode');
    expect(warnings).toEqual([
      expect.objectContaining({
        level: 40,
        path: data,
        mode: '0755',
        msg: expect.stringContaining('chmod 700'),
      }),
      expect.objectContaining({ path: join(data, 'issuer.sqlite'), mode: '0644' }),
    ]);
    // Left as they were: the operator decides.
    expect(mode(data)).toBe(0o755);
  });

  it('a location that cannot hold the database fails with an error naming the path, not a stack', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'not a directory');
    const under = join(file, 'issuer.sqlite');
    expect(() => openSqliteStore(under)).toThrow(DatabaseFileError);
    expect(() => openSqliteStore(under)).toThrow(`SQLite database ${under}: ${file} is not a directory`);
    const folder = join(dir, 'a-folder');
    mkdirSync(folder);
    expect(() => openSqliteStore(folder)).toThrow(`SQLite database ${folder}: ${folder} is a directory`);
    // SQLite's own "file is not a database" names the path too.
    const garbage = join(dir, 'garbage.sqlite');
    writeFileSync(garbage, 'x'.repeat(4096));
    chmodSync(garbage, 0o600);
    let thrown: unknown;
    try {
      openSqliteStore(garbage);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(DatabaseFileError);
    expect(thrown).toMatchObject({
      path: garbage,
      message: `SQLite database ${garbage}: file is not a database`,
    });

    const out: string[] = [];
    const err: string[] = [];
    const io = {
      stdout: { write: (text: string) => out.push(text) },
      stderr: { write: (text: string) => err.push(text) },
      env: {},
      cwd: dir,
    };
    expect((await runCli(['migrate', '--database', under], io)).code).toBe(1);
    expect(err.join('')).toBe(`Error: SQLite database ${under}: ${file} is not a directory\n`);
  });
});
