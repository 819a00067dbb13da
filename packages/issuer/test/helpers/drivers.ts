/**
 * The storage matrix: every storage-backed test runs once per driver. SQLite gets a fresh in-memory
 * database; PostgreSQL a fresh schema on the throwaway cluster of `test/setup/postgres.ts` (its URL
 * carries `search_path`), so test files stay isolated and run in parallel. On PostgreSQL,
 * `startIssuer()` (issuer.ts) runs two instances behind a load balancer.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { openStore } from '../../src/storage/open.js';
import type { Store } from '../../src/storage/store.js';

/** The drivers every storage-backed suite runs on. */
export const DRIVERS = Object.freeze(['sqlite', 'postgres'] as const);
/** One of {@link DRIVERS}. */
export type Driver = (typeof DRIVERS)[number];

/** `url` with `search_path` set to `schema` for every connection made from it. */
export function withSchema(url: string, schema: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('options', `-c search_path=${schema}`);
  return parsed.href;
}

/** A new, empty schema on the test cluster; resolves to a URL whose connections use it. */
export async function freshPostgresUrl(): Promise<string> {
  const base = inject('postgresUrl');
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA ${schema}`);
  } finally {
    await client.end();
  }
  return withSchema(base, schema);
}

/** The `database` setting of a fresh, empty database of `driver`. */
export async function freshDatabase(driver: Driver): Promise<string> {
  return driver === 'sqlite' ? ':memory:' : freshPostgresUrl();
}

/** A fresh, migrated store of `driver`. */
export async function openTestStore(driver: Driver): Promise<Store> {
  const store = openStore(await freshDatabase(driver));
  await store.migrate();
  return store;
}
