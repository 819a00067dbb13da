/**
 * Applies the pending migrations of `migrations/` in the executor's dialect, each in its own
 * transaction together with its row in `schema_migrations`. Serializing concurrent callers is the
 * driver's part (PostgreSQL runs this under an advisory lock; SQLite has one process per file).
 *
 * @module
 */
import type { Executor } from '../executor.js';
import { MIGRATIONS } from '../migrations/index.js';
import type { MigrationResult } from '../store.js';

/**
 * Apply every migration not yet recorded in `schema_migrations`, oldest first.
 *
 * @example
 * ```ts
 * const { applied, current } = await applyMigrations(db);
 * ```
 */
export async function applyMigrations(db: Executor): Promise<MigrationResult> {
  await db.script(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)',
  );
  const done = new Set(
    (await db.many('SELECT version FROM schema_migrations')).map((row) => String(row.version)),
  );
  const applied: string[] = [];
  for (const migration of MIGRATIONS) {
    if (done.has(migration.version)) continue;
    await db.transaction(async (tx) => {
      await tx.script(migration[db.dialect.name]);
      await tx.run('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)', [
        migration.version,
        Math.floor(Date.now() / 1000),
      ]);
    });
    applied.push(migration.version);
  }
  return { applied, current: MIGRATIONS.at(-1)?.version };
}
