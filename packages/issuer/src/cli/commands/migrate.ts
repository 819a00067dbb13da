/**
 * `gatehouse-issuer migrate`: apply pending migrations to the configured database (SQLite file or
 * PostgreSQL URL) and exit. Safe while other instances start or run: migrations take a lock.
 *
 * @module
 */
import { resolveConfig } from '../../issuer-config.js';
import { describeDatabase, openStore } from '../../storage/open.js';
import type { ParsedArgs } from '../args.js';
import { type CliIo, configFor } from '../io.js';

/** Run the migrations; resolves to the applied versions. */
export async function migrate(args: ParsedArgs, io: CliIo): Promise<readonly string[]> {
  const config = resolveConfig(configFor(args, io));
  const store = openStore(config.database, {
    ...config.postgres,
    onWarning: (warning) => io.stderr.write(`Warning: ${warning.message}\n`),
  });
  const database = describeDatabase(config.database);
  try {
    const result = await store.migrate();
    io.stderr.write(
      result.applied.length === 0
        ? `Database ${database} is up to date (${result.current}).\n`
        : `Applied ${result.applied.join(', ')} to ${database}.\n`,
    );
    io.stdout.write(`${JSON.stringify({ applied: result.applied, current: result.current })}\n`);
    return result.applied;
  } finally {
    await store.close();
  }
}
