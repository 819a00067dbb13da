/**
 * The CLI in-process: help, config errors naming the setting; start with printed credentials, migrate,
 * seed and keys rotate on every driver (SQLite by default, PostgreSQL through DATABASE_URL).
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { MIGRATIONS } from '../../src/storage/migrations/index.js';
import { DRIVERS, freshPostgresUrl } from '../helpers/drivers.js';
import { LogCapture } from '../helpers/issuer.js';

let dir: string;
let out: string[];
let err: string[];
let logs: LogCapture;
/** Environment every command of a test gets (the database of the driver under test). */
let base: Record<string, string> = {};

const io = (env: Record<string, string> = {}) => ({
  stdout: { write: (text: string) => out.push(text) },
  stderr: { write: (text: string) => err.push(text) },
  env: { ...base, ...env },
  cwd: dir,
  logs,
});

beforeEach(() => {
  base = {};
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-cli-'));
  out = [];
  err = [];
  logs = new LogCapture();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('gatehouse-issuer', () => {
  it('--help lists every command', async () => {
    const { code } = await runCli(['--help'], io());
    expect(code).toBe(0);
    for (const command of ['start', 'migrate', 'seed', 'keys rotate'])
      expect(err.join('')).toContain(command);
    expect((await runCli([], io())).code).toBe(2);
    expect((await runCli(['fly'], io())).code).toBe(2);
    expect((await runCli(['--version'], io())).code).toBe(0);
    expect(out.join('')).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('names the bad setting as the user wrote it: the flag, the environment variable, the config file', async () => {
    const said = async (argv: string[], env: Record<string, string> = {}) => {
      err = [];
      expect((await runCli(argv, io(env))).code).toBe(2);
      expect(err).toHaveLength(1); // one line, no stack
      return err.join('').trimEnd();
    };
    expect(await said(['migrate', '--port', 'abc'])).toBe('Configuration error: "--port" must be an integer');
    expect(await said(['migrate', '--port', '99999'])).toBe(
      'Configuration error: "--port" must be an integer between 0 and 65535',
    );
    expect(await said(['migrate', '--colour', 'x'])).toBe(
      'Configuration error: "--colour" is not a known option (see --help)',
    );
    expect(await said(['migrate', '--prot', '3002'])).toBe(
      'Configuration error: "--prot" is not a known option — did you mean "--port"? (see --help)',
    );
    expect(await said(['migrate'], { GATEHOUSE_PORT: '99999' })).toBe(
      'Configuration error: "GATEHOUSE_PORT" must be an integer between 0 and 65535',
    );
    expect(await said(['migrate'], { GATEHOUSE_TRUST_PROXY: 'maybe' })).toBe(
      'Configuration error: "GATEHOUSE_TRUST_PROXY" must be true or false',
    );
    expect(await said(['migrate'], { GATEHOUSE_LOG_LEVEL: 'loud' })).toBe(
      'Configuration error: "GATEHOUSE_LOG_LEVEL" must be one of fatal, error, warn, info, debug, trace, silent',
    );
    expect(
      await said(['migrate'], {
        GATEHOUSE_ADMIN_CLIENT_ID: 'ci-admin',
        GATEHOUSE_ADMIN_CLIENT_SECRET: 'short',
      }),
    ).toBe('Configuration error: "GATEHOUSE_ADMIN_CLIENT_SECRET" must be at least 32 characters');
    // A setting nobody set: how to set it.
    expect(await said(['migrate'], { GATEHOUSE_ADMIN_CLIENT_SECRET: 's'.repeat(40) })).toBe(
      'Configuration error: "admin.clientId" must be set together with the other admin credential (set it with --admin-client-id, GATEHOUSE_ADMIN_CLIENT_ID or "admin.clientId" in the config file)',
    );
    const file = join(dir, 'gatehouse-issuer.json');
    writeFileSync(file, JSON.stringify({ keys: { gracePeriod: -5 } }));
    expect(await said(['migrate'])).toBe(
      `Configuration error: "keys.gracePeriod" must be an integer, 0 or more (in ${file})`,
    );
    // The environment overrides the file, and is what the message names.
    writeFileSync(file, JSON.stringify({ port: 1 }));
    expect(await said(['migrate'], { GATEHOUSE_PORT: '70000' })).toContain('"GATEHOUSE_PORT" must be');
    writeFileSync(file, JSON.stringify({ customJwtClaims: { module: 'missing.mjs' } }));
    expect(await said(['migrate'])).toBe(
      `Configuration error: "customJwtClaims.module" must name an existing file (${join(dir, 'missing.mjs')} does not exist) (in ${file})`,
    );
    rmSync(file);
    writeFileSync(join(dir, 'other.json'), JSON.stringify({ keys: { graceperiod: 5 } }));
    expect(await said(['migrate', '-c', 'other.json'])).toBe(
      `Configuration error: "keys.graceperiod" is not a known setting — did you mean "keys.gracePeriod"? (in ${join(dir, 'other.json')})`,
    );
    writeFileSync(join(dir, 'other.json'), JSON.stringify({ baseURL: 'http://localhost:3001' }));
    expect(await said(['migrate', '-c', 'other.json'])).toContain(
      '"baseURL" is not a known setting — did you mean "baseUrl"? (in ',
    );
    writeFileSync(join(dir, 'broken.json'), '{');
    expect(await said(['migrate', '--config', 'broken.json'])).toContain('is not valid JSON');
    // Options only code can pass are not settings of the file.
    writeFileSync(join(dir, 'other.json'), JSON.stringify({ store: {} }));
    expect(await said(['migrate', '-c', 'other.json'])).toContain('"store" is not a known setting');
  });

  it('suggests the command meant', async () => {
    expect((await runCli(['strat'], io())).code).toBe(2);
    expect(err.join('')).toMatch(/^Unknown command "strat" — did you mean "start"\?\n/);
    err = [];
    expect((await runCli(['admin', 'reset-secrets'], io())).code).toBe(2);
    expect(err.join('')).toMatch(
      /^Unknown command "admin reset-secrets" — did you mean "admin reset-secret"\?/,
    );
  });

  it('a mistyped DATABASE_URL is refused naming it, and creates no SQLite database (#29 item 3)', async () => {
    for (const url of [
      'postgres//gatehouse@localhost/gatehouse',
      'postgresql:/gatehouse@localhost/gatehouse',
      'postgres:gatehouse@localhost/gatehouse',
    ]) {
      err = [];
      expect((await runCli(['migrate'], io({ DATABASE_URL: url }))).code, url).toBe(2);
      expect(err.join('').trimEnd()).toBe(
        'Configuration error: "DATABASE_URL" looks like a URL but is not one (a scheme needs "://"): write postgres://user:password@host:5432/gatehouse, or a SQLite file path such as ./data/issuer.sqlite',
      );
    }
    expect(readdirSync(dir)).toEqual([]);
  });

  it('warns of a GATEHOUSE_* variable it does not read, naming the one meant (#29 item 2)', async () => {
    const env = {
      GATEHOUSE_PROT: '3005',
      GATEHOUSE_DATABASE: ':memory:',
      GATEHOUSE_WEBHOOK_SECRET: 'x',
      OTHER: '1',
    };
    expect((await runCli(['migrate'], io(env))).code).toBe(0);
    expect(
      err
        .join('')
        .split('\n')
        .filter((line) => line.startsWith('warning:')),
    ).toEqual([
      'warning: GATEHOUSE_PROT is not a gatehouse-issuer setting and is ignored (did you mean GATEHOUSE_PORT?)',
    ]);
    err = [];
    expect(
      (await runCli(['migrate'], io({ GATEHOUSE_DATABASE: ':memory:', GATEHOUSE_COLOUR: 'red' }))).code,
    ).toBe(0);
    expect(err.join('').split('\n')[0]).toBe(
      'warning: GATEHOUSE_COLOUR is not a gatehouse-issuer setting and is ignored',
    );
  });

  it('takes the database from DATABASE_URL; GATEHOUSE_DATABASE wins; other URL schemes are refused', async () => {
    expect((await runCli(['migrate'], io({ DATABASE_URL: 'mysql://db/x' }))).code).toBe(2);
    expect(err.join('')).toContain('"DATABASE_URL" must be a SQLite file path');
    expect((await runCli(['migrate', '--database-url', 'mysql://db/x'], io())).code).toBe(2);
    expect(err.join('')).toContain('"--database-url" must be a SQLite file path');
    err = [];
    expect(
      (await runCli(['migrate'], io({ DATABASE_URL: 'mysql://db/x', GATEHOUSE_DATABASE: ':memory:' }))).code,
    ).toBe(0);
    expect(JSON.parse(out[0]!).applied).toHaveLength(MIGRATIONS.length);
    expect(
      (await runCli(['migrate'], io({ GATEHOUSE_POSTGRES_POOL_SIZE: '1', GATEHOUSE_DATABASE: ':memory:' })))
        .code,
    ).toBe(2);
    expect(err.join('')).toContain('"GATEHOUSE_POSTGRES_POOL_SIZE" must be an integer between 2 and 1000');
  });

  it('never prints the database password', async () => {
    // The test cluster trusts loopback connections, so any password works: it stands for a real one.
    const url = new URL(await freshPostgresUrl());
    url.password = 'pw-s3cret-value';
    expect((await runCli(['migrate'], io({ DATABASE_URL: url.href }))).code).toBe(0);
    const started = await runCli(['start', '--port', '0'], io({ DATABASE_URL: url.href }));
    expect(started.code).toBe(0);
    await started.issuer!.close();
    const printed = `${err.join('')}${out.join('')}${logs.text}`;
    expect(printed).toContain('postgres://postgres:***@127.0.0.1');
    expect(printed).not.toContain('pw-s3cret-value');
  });
});

describe.each(DRIVERS)('gatehouse-issuer on %s', (driver) => {
  beforeEach(async () => {
    base = driver === 'postgres' ? { DATABASE_URL: await freshPostgresUrl() } : {};
  });
  /** A database nothing else uses: in memory for SQLite, the test's schema for PostgreSQL. */
  const scratch = () => base.DATABASE_URL ?? ':memory:';

  it('start on a fresh directory creates the database and prints the administrator credentials', async () => {
    const first = await runCli(['start', '--port', '0'], io());
    expect(first.code).toBe(0);
    const issuer = first.issuer!;
    try {
      const text = err.join('');
      expect(text).toContain('Client ID:');
      const secret = /Client secret:\s+(\S+)/.exec(text)![1]!;
      expect(secret).toHaveLength(43);
      expect(issuer.config.database).toBe(base.DATABASE_URL ?? join(dir, '.data', 'issuer.sqlite'));
      expect(issuer.config.baseUrl).toBe('http://localhost:0');
      // The secret is printed for people, never logged.
      expect(logs.text).not.toContain(secret);
    } finally {
      await issuer.close();
    }
    // Later starts: test/cli/admin-secret.test.ts.
  });

  it('takes the administrator credentials from the environment', async () => {
    const env = {
      GATEHOUSE_ADMIN_CLIENT_ID: 'ci-admin',
      GATEHOUSE_ADMIN_CLIENT_SECRET: 's'.repeat(40),
      GATEHOUSE_DATABASE: scratch(),
    };
    const { issuer } = await runCli(['start', '--port', '0', '--base-url', 'http://127.0.0.1:1'], io(env));
    try {
      expect(issuer!.admin.adminClientId).toBe('ci-admin');
      expect(err.join('')).not.toContain('s'.repeat(40));
    } finally {
      await issuer!.close();
    }
  });

  it('migrate applies once, then reports up to date', async () => {
    expect((await runCli(['migrate'], io())).code).toBe(0);
    expect(JSON.parse(out[0]!)).toEqual({
      applied: MIGRATIONS.map((migration) => migration.version),
      current: MIGRATIONS.at(-1)!.version,
    });
    expect((await runCli(['migrate'], io())).code).toBe(0);
    expect(JSON.parse(out[1]!).applied).toEqual([]);
    expect(err.join('')).toContain('up to date');
  });

  it('seed loads a file idempotently and prints generated secrets once', async () => {
    const file = join(dir, 'seed.json');
    writeFileSync(
      file,
      JSON.stringify({
        resources: [{ name: 'Orders', indicator: 'https://orders.example.com', scopes: ['read:orders'] }],
        roles: [
          {
            name: 'reader',
            type: 'User',
            scopes: [{ resource: 'https://orders.example.com', scope: 'read:orders' }],
          },
        ],
        users: [{ username: 'alice', password: 'password123', roles: ['reader'] }],
        applications: [{ name: 'Worker', type: 'MachineToMachine' }],
      }),
    );
    expect((await runCli(['seed', 'seed.json'], io())).code).toBe(0);
    expect(err.join('')).toContain('users: 1 created');
    expect(err.join('')).toMatch(/Worker: client id app_\w+, secret \S{43} \(shown once\)/);
    err = [];
    expect((await runCli(['seed', 'seed.json'], io())).code).toBe(0);
    expect(err.join('')).toContain('users: 0 created, 0 updated');
    expect(err.join('')).not.toContain('shown once');
    expect((await runCli(['seed'], io())).code).toBe(2);
    writeFileSync(file, JSON.stringify({ users: [{ username: 'x', admin: true }] }));
    expect((await runCli(['seed', 'seed.json'], io())).code).toBe(1);
    expect(err.join('')).toContain('seed.users.0');
  });

  it('reads impersonation settings from the config file; the claims module is relative to the working directory', async () => {
    writeFileSync(join(dir, 'claims.mjs'), 'export const getCustomJwtClaims = () => ({});\n');
    writeFileSync(
      join(dir, 'gatehouse-issuer.json'),
      JSON.stringify({
        subjectTokens: { ttl: 300 },
        tokenExchange: { maxFailures: 5 },
        customJwtClaims: { module: 'claims.mjs', environmentVariables: { TENANT: 'acme' }, timeout: 1000 },
      }),
    );
    const { code, issuer } = await runCli(['start', '--port', '0', '--database', scratch()], io());
    expect(code).toBe(0);
    try {
      expect(issuer!.config.subjectTokens.ttl).toBe(300);
      expect(issuer!.config.tokenExchange.maxFailures).toBe(5);
      expect(issuer!.config.customJwtClaims).toMatchObject({
        module: join(dir, 'claims.mjs'),
        timeout: 1000,
      });
    } finally {
      await issuer!.close();
    }
    writeFileSync(
      join(dir, 'gatehouse-issuer.json'),
      JSON.stringify({ customJwtClaims: { module: 'x', deadline: 1 } }),
    );
    expect((await runCli(['migrate'], io())).code).toBe(2);
    expect(err.join('')).toContain('"customJwtClaims.deadline" is not a known setting');
  });

  it('keys rotate stores a new active key', async () => {
    expect((await runCli(['migrate'], io())).code).toBe(0);
    expect((await runCli(['keys', 'rotate'], io())).code).toBe(0);
    const rotated = JSON.parse(out.at(-1)!);
    expect(rotated.alg).toBe('RS256');
    expect((await runCli(['keys', 'rotate'], io())).code).toBe(0);
    expect(JSON.parse(out.at(-1)!).kid).not.toBe(rotated.kid);
    expect((await runCli(['keys'], io())).code).toBe(2);
  });
});
