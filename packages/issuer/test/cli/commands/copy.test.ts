/**
 * `gatehouse-issuer copy`: a SQLite file seeded through a real issuer (seed + Management API: users,
 * applications, resources, roles, a PAT, a rotated key, audit events) is copied into a throwaway
 * PostgreSQL schema; the issuer started on PostgreSQL at the same URL then serves the copied users,
 * applications and keys — tokens issued before the copy still verify, the administrator's and the
 * applications' secrets still work, the PAT still exchanges. A second copy into the now non-empty
 * target is refused without `--force` and changes nothing; with `--force` it replaces.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createVerifier } from '@gatehouse/core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/run.js';
import { createIssuer, type Issuer } from '../../../src/index.js';
import { COPIED_TABLES } from '../../../src/storage/copy.js';
import { freshPostgresUrl } from '../../helpers/drivers.js';
import { exchange, loadExchangeWorld, PAT_TOKEN_TYPE, teWeb } from '../../helpers/exchange.js';
import { loadWorld, ORDERS, SECRETS } from '../../helpers/fixtures.js';
import {
  adminToken,
  api,
  clientCredentials,
  freePort,
  LogCapture,
  type TestIssuer,
} from '../../helpers/issuer.js';

let dir: string;
let file: string;
let url: string;
let port: number;
let baseUrl: string;
let running: Issuer | undefined;

/** Start the issuer at `baseUrl` on `database`, as a TestIssuer for the helpers. */
async function start(database: string, adminSecret: string | undefined): Promise<TestIssuer> {
  const logs = new LogCapture();
  const issuer = await createIssuer({
    baseUrl,
    database,
    passwords: { scryptCost: 1024 },
    log: { level: 'debug', destination: logs },
  });
  running = issuer;
  await issuer.listen(port, '127.0.0.1');
  const clientSecret = issuer.admin.adminClientSecret ?? adminSecret!;
  return {
    issuer,
    instances: [issuer],
    baseUrl,
    logs,
    admin: { clientId: issuer.admin.adminClientId, clientSecret },
    converge: async () => undefined,
    close: async () => {
      running = undefined;
      await issuer.close();
    },
  };
}

const cli = async (argv: string[], env: Record<string, string> = {}) => {
  const out: string[] = [];
  const err: string[] = [];
  const { code } = await runCli(argv, {
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: (text: string) => err.push(text) },
    env,
    cwd: dir,
  });
  return { code, out: out.join(''), err: err.join('') };
};

async function pgCounts(): Promise<Record<string, number>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const counts: Record<string, number> = {};
    for (const { name } of COPIED_TABLES)
      counts[name] = Number((await client.query(`SELECT COUNT(*) AS n FROM ${name}`)).rows[0].n);
    return counts;
  } finally {
    await client.end();
  }
}

const verifier = () =>
  createVerifier({ issuer: `${baseUrl}/oidc`, audience: ORDERS, strict: true, allowInsecureHttp: true });

describe('gatehouse-issuer copy (SQLite → PostgreSQL)', () => {
  let before: {
    adminSecret: string;
    adminClientId: string;
    oldKeyToken: string;
    newKeyToken: string;
    adminBearer: string;
    pat: string;
    kids: string[];
    users: string[];
    applications: string[];
    auditEvents: number;
  };
  let copied: { code: number; out: string; err: string };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gatehouse-copy-'));
    file = join(dir, 'issuer.sqlite');
    url = await freshPostgresUrl();
    port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;

    const t = await start(file, undefined);
    await loadWorld(t);
    await loadExchangeWorld(t);
    const admin = await adminToken(t);
    const dave = (await t.issuer.store.users.findByLogin('dave'))!.id;
    const pat = await api(t, admin, 'POST', `/users/${dave}/personal-access-tokens`, { name: 'cli' });
    expect(pat.status).toBe(201);
    const oldKeyToken = String(
      (await clientCredentials(baseUrl, 'worker', SECRETS.worker, { resource: ORDERS })).body.access_token,
    );
    expect((await api(t, admin, 'POST', '/signing-keys/rotate')).status).toBe(201);
    const newKeyToken = String(
      (await clientCredentials(baseUrl, 'worker', SECRETS.worker, { resource: ORDERS })).body.access_token,
    );
    const adminBearer = await adminToken(t);
    before = {
      adminSecret: t.admin.clientSecret,
      adminClientId: t.admin.clientId,
      oldKeyToken,
      newKeyToken,
      adminBearer,
      pat: pat.body.value,
      kids: t.issuer.jwks().keys.map((key) => String(key.kid)),
      users: (await api(t, adminBearer, 'GET', '/users?pageSize=100')).body.items.map(
        (user: { username: string }) => user.username,
      ),
      applications: (await api(t, adminBearer, 'GET', '/applications?pageSize=100')).body.items.map(
        (app: { clientId: string }) => app.clientId,
      ),
      auditEvents: (await t.issuer.store.auditEvents.list({}, { page: 1, pageSize: 100 })).total,
    };
    expect(before.kids).toHaveLength(2);
    expect(before.auditEvents).toBeGreaterThan(0);
    await t.close();

    copied = await cli(['copy', '--from', 'issuer.sqlite'], { DATABASE_URL: url });
  }, 60_000);

  afterAll(async () => {
    await running?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('copies every table in one go: a progress line per table, counts checked, JSON counts on stdout', async () => {
    expect(copied.err).not.toContain('Error');
    expect(copied.code).toBe(0);
    for (const { name } of COPIED_TABLES)
      expect(copied.err).toMatch(new RegExp(`^  ${name} +\\d+ rows$`, 'm'));
    expect(copied.err).toContain("every table's count matches the source");
    const result = JSON.parse(copied.out) as { tables: Record<string, number>; total: number };
    expect(result.tables).toEqual(await pgCounts());
    expect(result.tables.users).toBe(before.users.length);
    expect(result.tables.signing_keys).toBe(2);
    expect(result.tables.personal_access_tokens).toBe(1);
    expect(result.tables.audit_events).toBe(before.auditEvents);
    expect(result.total).toBe(Object.values(result.tables).reduce((a, b) => a + b, 0));
  });

  it('covers every table of the schema (a new table must be added to the copy)', async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_name <> 'schema_migrations'",
      );
      expect(rows.map((row) => row.table_name).sort()).toEqual(COPIED_TABLES.map((t) => t.name).sort());
    } finally {
      await client.end();
    }
  });

  it('the issuer on PostgreSQL serves the copied users, applications and keys; old tokens still verify', async () => {
    const t = await start(url, before.adminSecret);
    try {
      expect(t.issuer.store.driver).toBe('postgres');
      expect(t.issuer.admin.created).toBe(false);
      expect(t.issuer.admin.adminClientId).toBe(before.adminClientId);
      expect(t.issuer.jwks().keys.map((key) => String(key.kid))).toEqual(before.kids);
      // Tokens signed before the copy, by the retired key and by the active one.
      for (const token of [before.oldKeyToken, before.newKeyToken])
        expect((await verifier().verify(token)).claims.client_id).toBe('worker');
      // A Management API token issued before the copy, and the administrator's secret.
      const users = await api(t, before.adminBearer, 'GET', '/users?pageSize=100');
      expect(users.status).toBe(200);
      expect(users.body.items.map((user: { username: string }) => user.username)).toEqual(before.users);
      const admin = await adminToken(t);
      const apps = await api(t, admin, 'GET', '/applications?pageSize=100');
      expect(apps.body.items.map((app: { clientId: string }) => app.clientId)).toEqual(before.applications);
      // Application secrets (digests) and roles: a new token, signed by the copied active key.
      const issued = await clientCredentials(baseUrl, 'worker', SECRETS.worker, { resource: ORDERS });
      expect(issued.status).toBe(200);
      const auth = await verifier().verify(String(issued.body.access_token));
      expect(auth.claims.scope).toBe('read:orders write:orders');
      expect(
        JSON.parse(Buffer.from(String(issued.body.access_token).split('.')[0]!, 'base64url').toString()).kid,
      ).toBe(before.kids[0]);
      // The PAT (digest) still stands in for its user.
      const exchanged = await exchange(
        t,
        { subject_token: before.pat, subject_token_type: PAT_TOKEN_TYPE, resource: ORDERS },
        teWeb,
      );
      expect(exchanged.status).toBe(200);
      const audit = await api(t, admin, 'GET', '/audit-events?pageSize=100');
      expect(audit.body.total).toBeGreaterThan(before.auditEvents);
    } finally {
      await t.close();
    }
  });

  it('refuses a non-empty target without --force and changes nothing; --force replaces its data', async () => {
    const counts = await pgCounts();
    const refused = await cli(['copy', '--from', file, '--to', url]);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/^Error: the target database already holds \d+ rows .*pass --force/m);
    expect(refused.out).toBe('');
    expect(await pgCounts()).toEqual(counts);

    const forced = await cli(['copy', '--from', file, '--to', url, '--force']);
    expect(forced.code).toBe(0);
    expect(forced.err).toMatch(/Replaced the \d+ rows the target held \(--force\)/);
    expect(JSON.parse(forced.out).tables).toEqual(await pgCounts());
    expect((await pgCounts()).audit_events).toBe(before.auditEvents);
  });

  it('names what is wrong with the command line', async () => {
    expect(await cli(['copy', '--to', url])).toMatchObject({
      code: 2,
      err: 'Configuration error: "--from" is required: the SQLite file to copy from\n',
    });
    expect(await cli(['copy', '--from', url, '--to', url])).toMatchObject({ code: 2 });
    expect((await cli(['copy', '--from', file])).err).toContain('"--to" must be a postgres:// URL');
    expect(await cli(['copy', '--from', 'missing.sqlite', '--to', url])).toMatchObject({
      code: 1,
      err: `Error: ${join(dir, 'missing.sqlite')} does not exist: nothing to copy\n`,
    });
    expect((await cli(['migrate', '--force'])).err).toContain(
      '"--force" is an option of the copy command only',
    );
    expect((await cli(['copy', '--force=maybe'])).code).toBe(2);
  });
});
