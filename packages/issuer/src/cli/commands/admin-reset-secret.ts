/**
 * `gatehouse-issuer admin reset-secret`: give the administrator application a new secret and print
 * it once, for when the one printed by `start` is lost. The previous secret stops working at once.
 * With SQLite, run it while the issuer is stopped (one process per database file); with PostgreSQL,
 * against the shared database (`--database-url` / `DATABASE_URL`) while instances run.
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { resetAdminSecret } from '../../bootstrap.js';
import { ConfigError, NoAdministratorError } from '../../errors.js';
import { epoch } from '../../internal/ids.js';
import { resolveConfig } from '../../issuer-config.js';
import { describeDatabase, openStore } from '../../storage/open.js';
import type { ParsedArgs } from '../args.js';
import { type CliIo, configFor } from '../io.js';

/**
 * Reset the secret; resolves to the administrator's client id.
 *
 * @example
 * ```ts
 * await adminResetSecret(parseArgs(['admin', 'reset-secret', '--data-dir', './.data']), io);
 * ```
 */
export async function adminResetSecret(args: ParsedArgs, io: CliIo): Promise<string> {
  const config = resolveConfig(configFor(args, io));
  if (config.admin.clientSecret !== undefined)
    throw new ConfigError(
      'admin.clientSecret',
      'fixes the administrator secret: change it there and restart the issuer instead of resetting it',
    );
  const database = describeDatabase(config.database);
  if (config.database === ':memory:')
    throw new ConfigError('database', 'is ":memory:", which holds no administrator to reset');
  const postgres = /^postgres(?:ql)?:\/\//i.test(config.database);
  if (!postgres && !existsSync(config.database)) throw new NoAdministratorError(database, false);
  const store = openStore(config.database, config.postgres);
  try {
    await store.migrate();
    const { clientId, clientSecret } = await store.exclusive('start', () =>
      resetAdminSecret(store, epoch(), { database }),
    );
    io.stderr.write(
      [
        `New secret issued for the administrator application of ${database}; the previous one no longer works.`,
        'It is shown only now: store it safely.',
        `  Client ID:       ${clientId}`,
        `  Client secret:   ${clientSecret}`,
        '',
      ].join('\n'),
    );
    return clientId;
  } finally {
    await store.close();
  }
}
