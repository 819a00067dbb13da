/**
 * What a SQL store lets an observer see: nothing is timed until an observer is set; then each statement
 * by its first keyword (the only part of its text handed on), each transaction as a whole (its
 * statements too), a failed statement with its error. Checked on a real SQLite store (PostgreSQL's pool usage is checked by the
 * metrics tests).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/storage/drivers/sqlite.js';
import { observationOf } from '../../src/storage/observation.js';
import { executorOf } from '../../src/storage/sql/index.js';
import type { Store } from '../../src/storage/store.js';

let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

describe('store observation', () => {
  it('times nothing until observed, then every statement by its keyword and transactions whole', async () => {
    store = openSqliteStore(':memory:');
    await store.migrate();
    const observation = observationOf(store)!;
    expect(observation.system).toBe('sqlite');
    expect(observation.poolUsage).toBeUndefined();
    const seen: Array<[string, number, unknown]> = [];
    await store.users.findByLogin('nobody');
    expect(seen).toEqual([]);

    observation.time((operation, seconds, error) => seen.push([operation, seconds, error]));
    await store.users.findByLogin('nobody');
    expect(seen.length).toBeGreaterThan(0);
    expect(
      seen.every(
        ([operation, seconds, error]) => operation === 'SELECT' && seconds >= 0 && error === undefined,
      ),
    ).toBe(true);

    seen.length = 0;
    await store.transaction(async (tables) => tables.users.findByLogin('nobody'));
    expect(seen.map(([operation]) => operation)).toContain('transaction');
    expect(seen.map(([operation]) => operation)).toContain('SELECT');

    seen.length = 0;
    await expect(executorOf(store)!.one('SELECT * FROM no_such_table')).rejects.toThrow();
    // The executor handed out for whole-table work is the observed one too.
    expect(seen).toHaveLength(1);
    expect(seen[0]![0]).toBe('SELECT');
    expect(seen[0]![2]).toBeInstanceOf(Error);

    observation.time(undefined);
    seen.length = 0;
    await store.users.findByLogin('nobody');
    expect(seen).toEqual([]);
  });

  it('reports nothing for a store it did not build', () => {
    expect(observationOf({} as Store)).toBeUndefined();
  });
});
