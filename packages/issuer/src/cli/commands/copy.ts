/**
 * `gatehouse-issuer copy --from <sqlite file> --to <postgres url> [--force]`: move an issuer's data
 * from SQLite to PostgreSQL (see `storage/copy.ts`): users, applications (secret digests), resources,
 * scopes, roles, PATs (digests), signing keys, audit events, sessions and grants, settings. One
 * transaction; a non-empty target is refused unless `--force`; a progress line per table on standard
 * error, the counts as JSON on standard output. The URL may come from `GATEHOUSE_DATABASE` or
 * `DATABASE_URL` instead of `--to` (keeps its password out of the process list).
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError, CopyError } from '../../errors.js';
import { COPIED_TABLES, type CopyReport, copyStore } from '../../storage/copy.js';
import { isPostgresUrl } from '../../storage/drivers/postgres.js';
import { describeDatabase, openStore } from '../../storage/open.js';
import type { ParsedArgs } from '../args.js';
import type { CliIo } from '../io.js';

const WIDTH = Math.max(...COPIED_TABLES.map((table) => table.name.length));

/**
 * Run the copy; resolves to what was copied.
 *
 * @example
 * ```ts
 * await copyCommand(parseArgs(['copy', '--from', './.data/issuer.sqlite', '--to', url]), io);
 * ```
 */
export async function copyCommand(args: ParsedArgs, io: CliIo): Promise<CopyReport> {
  const from = args.options.from;
  if (from === undefined) throw new ConfigError('--from', 'is required: the SQLite file to copy from');
  if (isPostgresUrl(from) || from === ':memory:')
    throw new ConfigError('--from', 'must be a SQLite file (the PostgreSQL database is --to)');
  const to = args.options.to ?? io.env.GATEHOUSE_DATABASE ?? io.env.DATABASE_URL;
  if (to === undefined || !isPostgresUrl(to))
    throw new ConfigError(
      '--to',
      'must be a postgres:// URL (or set GATEHOUSE_DATABASE or DATABASE_URL to one)',
    );
  const path = resolve(io.cwd, from);
  if (!existsSync(path)) throw new CopyError('source_missing', `${path} does not exist: nothing to copy`);
  const source = openStore(path, {
    onWarning: (warning) => io.stderr.write(`Warning: ${warning.message}\n`),
  });
  const target = openStore(to);
  try {
    io.stderr.write(`Copying ${path} to ${describeDatabase(to)} in one transaction …\n`);
    const report = await copyStore(source, target, {
      force: args.options.force === 'true',
      onTable: (table, rows) => io.stderr.write(`  ${table.padEnd(WIDTH)}  ${rows} rows\n`),
    });
    if (report.replaced > 0)
      io.stderr.write(`Replaced the ${report.replaced} rows the target held (--force).\n`);
    io.stderr.write(
      `Copied ${report.total} rows in ${report.tables.length} tables; every table's count matches the source.\n`,
    );
    const tables = Object.fromEntries(report.tables.map((table) => [table.name, table.rows]));
    io.stdout.write(`${JSON.stringify({ tables, total: report.total })}\n`);
    return report;
  } finally {
    await Promise.all([source.close(), target.close()]);
  }
}
