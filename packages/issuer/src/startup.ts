/**
 * What a start does before anything is served: open the configured store (with its warnings logged),
 * migrate it, say whether it is single-node or shared, and — one instance at a time — create the
 * cookie keys, the administrator and the first signing key when they do not exist yet.
 *
 * @module
 */
import { createHmac } from 'node:crypto';
import type { Logger } from 'pino';
import { type BootstrapResult, bootstrap, SETTING_KEYS } from './bootstrap.js';
import { loadNonceSecret } from './dpop.js';
import { epoch } from './internal/ids.js';
import { generateSecret } from './internal/secrets.js';
import type { ResolvedConfig } from './issuer-config.js';
import { type KeySet, loadKeySet } from './keys.js';
import { openStore } from './storage/open.js';
import type { Store } from './storage/store.js';

/**
 * Open the store `config.database` names, logging connection errors and an unsafe file mode.
 *
 * @example
 * ```ts
 * const store = config.store ?? openConfiguredStore(config, log);
 * ```
 */
export function openConfiguredStore(config: ResolvedConfig, log: Logger): Store {
  return openStore(config.database, {
    ...config.postgres,
    onError: (err) =>
      log.warn(
        { event: 'store.connection_error', err: { message: err.message } },
        'database connection error',
      ),
    onWarning: (warning) =>
      log.warn(
        { event: 'store.file_mode', path: warning.path, mode: `0${warning.mode.toString(8)}` },
        warning.message,
      ),
  });
}

/**
 * What a start found or created.
 *
 * @example
 * ```ts
 * const { admin, initialKeys }: Prepared = await prepare(config, log, store);
 * ```
 */
export interface Prepared {
  readonly cookieKeys: readonly string[];
  readonly admin: BootstrapResult;
  readonly initialKeys: KeySet;
  /** The DPoP nonce secret shared by every instance on the database. */
  readonly dpopNonceSecret: Buffer;
  /** HMAC key of the sign-in forms' CSRF tokens, derived from the first cookie key. */
  readonly csrfKey: Buffer;
}

/**
 * Migrate, bootstrap and load the keys.
 *
 * @example
 * ```ts
 * const prepared = await prepare(config, log, store);
 * if (prepared.admin.adminClientSecret) console.log(prepared.admin.adminClientSecret);
 * ```
 */
export async function prepare(config: ResolvedConfig, log: Logger, store: Store): Promise<Prepared> {
  const migration = await store.migrate();
  if (migration.applied.length > 0)
    log.info({ event: 'store.migrated', applied: migration.applied }, 'database migrated');
  if (!store.multiNode) {
    log.info(
      { event: 'store.single_node', driver: store.driver },
      `${store.driver} storage is single-node: run one issuer process per database`,
    );
  } else {
    log.info(
      { event: 'store.multi_node', driver: store.driver },
      `${store.driver} storage is shared: every issuer instance on this database serves as one`,
    );
  }
  // Instances started together take turns: one creates the administrator and the first key, the
  // others find them.
  const { cookieKeys, admin, initialKeys } = await store.exclusive('start', async () => {
    const cookieKeys =
      config.cookieKeys ??
      (JSON.parse(
        await store.settings.setIfAbsent(SETTING_KEYS.cookieKeys, JSON.stringify([generateSecret()])),
      ) as string[]);
    const admin = await bootstrap(store, config, epoch());
    return { cookieKeys, admin, initialKeys: await loadKeySet(store, config, epoch()) };
  });
  const dpopNonceSecret = await loadNonceSecret(store);
  const csrfKey = createHmac('sha256', cookieKeys[0]!).update('gatehouse-issuer:csrf').digest();
  if (admin.created)
    log.info(
      { event: 'bootstrap.admin_created', clientId: admin.adminClientId },
      'administrator application created',
    );
  return { cookieKeys, admin, initialKeys, dpopNonceSecret, csrfKey };
}
