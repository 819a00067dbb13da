/**
 * `copyStore()` between two real stores (a SQLite file and a fresh PostgreSQL schema): more rows than
 * one INSERT holds are copied in batches, audit events keep their order (PostgreSQL's `seq` follows
 * the source's insertion order within one second), a second copy is refused without `force` and
 * leaves the target as it was, and a store not opened by `openStore()` is refused.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/config/defaults.js';
import { CopyError } from '../../src/errors.js';
import { copyStore } from '../../src/storage/copy.js';
import { openStore } from '../../src/storage/open.js';
import type { Store } from '../../src/storage/store.js';
import { freshPostgresUrl } from '../helpers/drivers.js';

let dir: string;
let source: Store;
let target: Store;
const EVENTS = 450; // audit_events has 9 columns: more than two INSERTs' worth

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-copy-store-'));
  source = openStore(join(dir, 'issuer.sqlite'));
  target = openStore(await freshPostgresUrl());
  await source.migrate();
  const now = 1_800_000_000;
  // All in one second, ids in another order than insertion: only insertion order keeps them in line.
  for (let i = 0; i < EVENTS; i++)
    await source.auditEvents.record(
      {
        id: `evt_${String((i * 7919) % 1000).padStart(3, '0')}_${i}`,
        type: 'token_exchange.succeeded',
        details: { i },
      },
      now,
    );
});

afterAll(async () => {
  await Promise.all([source.close(), target.close()]);
  rmSync(dir, { recursive: true, force: true });
});

describe('copyStore', () => {
  it('copies in batches and keeps the order of audit events', async () => {
    expect(Math.floor(DEFAULTS.copy.maxValuesPerInsert / 9)).toBeLessThan(EVENTS / 2);
    const seen: string[] = [];
    const report = await copyStore(source, target, { onTable: (table) => seen.push(table) });
    expect(report.tables.find((table) => table.name === 'audit_events')?.rows).toBe(EVENTS);
    expect(seen).toEqual(report.tables.map((table) => table.name));
    const order = async (store: Store) =>
      (await store.auditEvents.list({}, { page: 1, pageSize: 100 })).items.map((event) => event.details.i);
    expect(await order(target)).toEqual(await order(source));
    expect((await target.auditEvents.list({}, { page: 5, pageSize: 100 })).items.at(-1)?.details.i).toBe(0);
  });

  it('refuses a non-empty target without force and leaves it as it was', async () => {
    await source.auditEvents.record({ id: 'evt_late', type: 'token_exchange.succeeded' }, 1_800_000_001);
    const err = await copyStore(source, target).catch((error: unknown) => error);
    expect(err).toBeInstanceOf(CopyError);
    expect((err as CopyError).reason).toBe('target_not_empty');
    expect((await target.auditEvents.list({}, { page: 1, pageSize: 1 })).total).toBe(EVENTS);
    const forced = await copyStore(source, target, { force: true });
    expect(forced.replaced).toBe(EVENTS);
    expect((await target.auditEvents.list({}, { page: 1, pageSize: 1 })).total).toBe(EVENTS + 1);
  });

  it('refuses a store it cannot read as SQL', async () => {
    const other = { ...target } as Store;
    await expect(copyStore(other, target)).rejects.toThrow(
      'the source must be a store opened by openStore()',
    );
  });
});
