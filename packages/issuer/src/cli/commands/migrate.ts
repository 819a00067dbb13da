/**
 * `gatehouse-issuer migrate`: apply pending migrations and exit.
 *
 * @module
 */
import { resolveConfig } from '../../config/schema.js';
import { openSqliteStore } from '../../storage/sqlite.js';
import type { ParsedArgs } from '../args.js';
import { type CliIo, configFor } from '../io.js';

/** Run the migrations; resolves to the applied versions. */
export async function migrate(args: ParsedArgs, io: CliIo): Promise<readonly string[]> {
  const config = resolveConfig(configFor(args, io));
  const store = openSqliteStore(config.database);
  try {
    const result = await store.migrate();
    io.stderr.write(
      result.applied.length === 0
        ? `Database ${config.database} is up to date (${result.current}).\n`
        : `Applied ${result.applied.join(', ')} to ${config.database}.\n`,
    );
    io.stdout.write(`${JSON.stringify({ applied: result.applied, current: result.current })}\n`);
    return result.applied;
  } finally {
    await store.close();
  }
}
