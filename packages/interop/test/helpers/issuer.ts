/**
 * A CLI-started issuer for one test file: seeded with `gatehouse-issuer seed <file.json>` on its SQLite
 * file in a temporary directory, then started with `gatehouse-issuer start` on a free loopback port,
 * with fixed administrator credentials and the limits the suite needs. The seed document is built from
 * the issuer's base URL, so it can name the loopback servers' redirect URIs chosen before.
 *
 * The processes, the build of `dist/` and the Management API calls are the issuer's own test helpers
 * (not published, so imported by relative path, as the console's tests do).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ensureBuilt,
  type Instance,
  runCliProcess,
  startInstance,
  stopInstance,
} from '../../../issuer/test/helpers/instances.js';
import {
  adminToken as administratorToken,
  freePort,
  api as managementApi,
} from '../../../issuer/test/helpers/issuer.js';

/** Every seeded user's password. */
export const PASSWORD = 'correct horse battery staple';

/** A running issuer. */
export interface Issuer {
  /** `http://127.0.0.1:<port>` */
  readonly baseUrl: string;
  /** The issuer identifier (`iss`): `{baseUrl}/oidc`. */
  readonly issuer: string;
  /** The Management API's resource indicator: `{baseUrl}/api`. */
  readonly managementApi: string;
  readonly admin: { readonly clientId: string; readonly clientSecret: string };
  /** A Management API token of the administrator (scope `all`). */
  adminToken(): Promise<string>;
  /** Call the Management API as the administrator. */
  api(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: Record<string, unknown> }>;
  /** The id of a user by username. */
  userId(username: string): Promise<string>;
  /** Mint a single-use subject token (`POST /api/subject-tokens`) for token exchange. */
  subjectToken(body: Record<string, unknown>): Promise<string>;
  /** What the process printed on standard error. */
  stderr(): string;
  close(): Promise<void>;
}

/** Options of {@link startIssuer}. */
export interface IssuerOptions {
  /** The seed document, given the issuer's base URL. */
  readonly seed: (baseUrl: string) => Record<string, unknown>;
  /** Settings added to the environment (e.g. `GATEHOUSE_ACCESS_TOKEN_FORMAT`). */
  readonly env?: Record<string, string>;
}

/** Seed, then start, the CLI issuer. */
export async function startIssuer(options: IssuerOptions): Promise<Issuer> {
  ensureBuilt();
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-interop-'));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const admin = { clientId: 'interop-admin', clientSecret: 'interop-admin-secret-0123456789abcdefghij' };
  const env: Record<string, string> = {
    DATABASE_URL: join(dir, 'issuer.sqlite'),
    GATEHOUSE_ADMIN_CLIENT_ID: admin.clientId,
    GATEHOUSE_ADMIN_CLIENT_SECRET: admin.clientSecret,
    GATEHOUSE_BASE_URL: baseUrl,
    // Cheap password hashes, and room for a suite's many requests from one client and address.
    GATEHOUSE_PASSWORD_SCRYPT_COST: '1024',
    GATEHOUSE_RATE_LIMITS_MANAGEMENT_PER_CLIENT: '100000',
    GATEHOUSE_RATE_LIMITS_TOKEN_PER_CLIENT: '100000',
    GATEHOUSE_RATE_LIMITS_TOKEN_PER_ADDRESS: '100000',
    GATEHOUSE_CONSOLE_ENABLED: 'false',
    GATEHOUSE_LOG_LEVEL: 'warn',
    ...options.env,
  };
  let instance: Instance;
  try {
    const file = join(dir, 'seed.json');
    writeFileSync(file, JSON.stringify(options.seed(baseUrl)));
    await runCliProcess(['seed', file], env);
    instance = await startInstance('issuer', baseUrl, env, port);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const adminToken = () => administratorToken({ baseUrl, admin });
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await managementApi({ baseUrl }, await adminToken(), method, path, body);
    return { status: res.status, body: res.body };
  };
  return {
    baseUrl,
    issuer: `${baseUrl}/oidc`,
    managementApi: `${baseUrl}/api`,
    admin,
    adminToken,
    api,
    async userId(username) {
      const res = await api('GET', `/users?pageSize=100`);
      const user = (res.body.items as { id: string; username: string }[]).find(
        (u) => u.username === username,
      );
      if (user === undefined) throw new Error(`no user ${username}`);
      return user.id;
    },
    async subjectToken(body) {
      const res = await api('POST', '/subject-tokens', body);
      if (res.status !== 201) throw new Error(`subject token: ${res.status} ${JSON.stringify(res.body)}`);
      return String(res.body.subjectToken);
    },
    stderr: () => instance.stderr(),
    async close() {
      await stopInstance(instance);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
