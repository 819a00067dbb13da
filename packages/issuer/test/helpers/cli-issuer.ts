/**
 * An issuer started as users start it: the built CLI (`gatehouse-issuer start`) as a real process on a
 * SQLite file of its own (or a database URL given), with fixed administrator credentials, settings
 * from the environment only, and the limits a test needs set explicitly. `restart()` stops the process
 * and starts it again on the same database and port.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt, type Instance, startInstance, stopInstance } from './instances.js';
import { freePort } from './issuer.js';

/** A running CLI-started issuer. */
export interface CliIssuer {
  readonly baseUrl: string;
  readonly admin: { readonly clientId: string; readonly clientSecret: string };
  /** The SQLite file (or database URL) it runs on. */
  readonly database: string;
  /** The process now. */
  instance(): Instance;
  /** Stop the process and start it again on the same database and port. */
  restart(): Promise<void>;
  /** Stop it and remove its directory. */
  close(): Promise<void>;
}

/**
 * Start `gatehouse-issuer start` on a free loopback port. `env` adds (or overrides) settings.
 *
 * @example
 * ```ts
 * const issuer = await startCliIssuer();
 * const token = await adminToken(issuer);
 * await issuer.close();
 * ```
 */
export async function startCliIssuer(env: Record<string, string> = {}): Promise<CliIssuer> {
  ensureBuilt();
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-cli-issuer-'));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const admin = { clientId: 'cli-admin', clientSecret: 'c'.repeat(40) };
  const database = env.DATABASE_URL ?? join(dir, 'issuer.sqlite');
  const settings: Record<string, string> = {
    DATABASE_URL: database,
    GATEHOUSE_ADMIN_CLIENT_ID: admin.clientId,
    GATEHOUSE_ADMIN_CLIENT_SECRET: admin.clientSecret,
    GATEHOUSE_PASSWORD_SCRYPT_COST: '1024',
    // Tests make many requests of one client and address in a minute.
    GATEHOUSE_RATE_LIMITS_MANAGEMENT_PER_CLIENT: '100000',
    GATEHOUSE_RATE_LIMITS_TOKEN_PER_CLIENT: '100000',
    GATEHOUSE_RATE_LIMITS_TOKEN_PER_ADDRESS: '100000',
    ...env,
  };
  let instance: Instance;
  try {
    instance = await startInstance('issuer', baseUrl, settings, port);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    baseUrl,
    admin,
    database,
    instance: () => instance,
    async restart() {
      await stopInstance(instance);
      instance = await startInstance('issuer', baseUrl, settings, port);
    },
    async close() {
      await stopInstance(instance);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
