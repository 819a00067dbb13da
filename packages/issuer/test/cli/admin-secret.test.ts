/**
 * The administrator's secret cannot be lost for good (in-process CLI, both drivers): a start while the
 * generated secret was never used prints a fresh one on SQLite (one process per file) and points to
 * `admin reset-secret` on PostgreSQL (shared by running instances); once the secret got a token, starts
 * print only the client id; `admin reset-secret` issues a working secret, prints it once, and the old
 * one stops working. Secrets are never logged.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import type { Issuer } from '../../src/server.js';
import { DRIVERS, freshPostgresUrl } from '../helpers/drivers.js';
import { freePort, LogCapture } from '../helpers/issuer.js';

let dir: string;
let err: string[];
let logs: LogCapture;
const running = new Set<Issuer>();

const io = (env: Record<string, string>) => ({
  stdout: { write: () => true },
  stderr: { write: (text: string) => err.push(text) },
  env,
  cwd: dir,
  logs,
});

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-admin-'));
  err = [];
  logs = new LogCapture();
});
afterEach(async () => {
  await Promise.all([...running].map((issuer) => issuer.close()));
  running.clear();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Run `start` on a free port (a new one each time: fetch keeps connections to a closed issuer in its
 * pool); resolves to the issuer, its port and what it printed.
 */
async function start(env: Record<string, string>) {
  err = [];
  const port = await freePort();
  const result = await runCli(['start', '--port', String(port)], io(env));
  expect(result.code, err.join('')).toBe(0);
  running.add(result.issuer!);
  return { issuer: result.issuer!, port, text: err.join('') };
}

async function stop(issuer: Issuer): Promise<void> {
  await issuer.close();
  running.delete(issuer);
}

const secretIn = (text: string) => /Client secret:\s+(\S+)/.exec(text)?.[1];

/** Status of a client-credentials request for the Management API, and of a call made with its token. */
async function useSecret(port: number, clientId: string, secret: string): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}/oidc/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      resource: `http://localhost:${port}/api`,
    }),
  });
  if (res.status !== 200) return res.status;
  const { access_token } = (await res.json()) as { access_token: string };
  const api = await fetch(`http://127.0.0.1:${port}/api/applications`, {
    headers: { authorization: `Bearer ${access_token}` },
  });
  return api.status;
}

describe.each(DRIVERS)('the administrator secret on %s', (driver) => {
  let env: Record<string, string>;
  /** `--database-url` / `--data-dir` for the one-shot command. */
  let where: string[];
  beforeEach(async () => {
    if (driver === 'postgres') {
      const url = await freshPostgresUrl();
      env = { DATABASE_URL: url };
      where = ['--database-url', url];
    } else {
      env = {};
      where = ['--data-dir', join(dir, '.data')];
    }
  });

  it('is re-issued by starts until it is used, then never again', async () => {
    const first = await start(env);
    const id = first.issuer.admin.adminClientId;
    const printed = secretIn(first.text)!;
    expect(first.text).toContain('Administrator application created.');
    await stop(first.issuer);

    // Nobody used it (the banner may be lost): the next start replaces it on SQLite.
    const second = await start(env);
    let port = second.port;
    let working = printed;
    if (driver === 'sqlite') {
      const fresh = secretIn(second.text)!;
      expect(second.text).toContain('The administrator secret printed before was never used');
      expect(fresh).not.toBe(printed);
      expect(await useSecret(port, id, printed)).toBe(401);
      expect(logs.text).toContain('"event":"bootstrap.admin_secret_reissued"');
      working = fresh;
    } else {
      // Several instances may share this database: none replaces a secret another one printed.
      expect(secretIn(second.text)).toBeUndefined();
      expect(second.text).toContain(`Administrator:   ${id}`);
      expect(second.text).toContain('Lost it? Issue a new one: gatehouse-issuer admin reset-secret');
    }
    expect(await useSecret(port, id, working)).toBe(200);
    await stop(second.issuer);

    const third = await start(env);
    port = third.port;
    expect(secretIn(third.text)).toBeUndefined();
    expect(third.text).toContain(`Administrator:   ${id}`);
    expect(third.text).not.toContain('never been used');
    expect(await useSecret(port, id, working)).toBe(200);
    expect(logs.text).not.toContain(printed);
    expect(logs.text).not.toContain(working);
  });

  it('admin reset-secret prints a new working secret once; the old one stops working', async () => {
    const first = await start(env);
    const id = first.issuer.admin.adminClientId;
    const old = secretIn(first.text)!;
    expect(await useSecret(first.port, id, old)).toBe(200);
    if (driver === 'sqlite') await stop(first.issuer); // one process per SQLite file

    err = [];
    const reset = await runCli(['admin', 'reset-secret', ...where], io({}));
    const text = err.join('');
    expect(reset.code, text).toBe(0);
    const fresh = secretIn(text)!;
    expect(fresh).toHaveLength(43);
    expect(text.split(fresh)).toHaveLength(2); // printed once
    expect(text).toContain('the previous one no longer works');
    expect(text).toContain(`Client ID:       ${id}`);

    const { issuer, port } = driver === 'sqlite' ? await start(env) : first;
    expect(await useSecret(port, id, old)).toBe(401);
    expect(await useSecret(port, id, fresh)).toBe(200);
    // An explicit reset is not re-issued by the next start.
    if (driver === 'sqlite') expect(secretIn(err.join(''))).toBeUndefined();
    await stop(issuer);
    expect(logs.text).not.toContain(fresh);
  });

  it('admin reset-secret refuses a database without an administrator', async () => {
    err = [];
    const result = await runCli(['admin', 'reset-secret', ...where], io({}));
    expect(result.code).toBe(1);
    expect(err).toHaveLength(1);
    expect(err[0]).toMatch(
      driver === 'sqlite'
        ? /^Error: .*issuer\.sqlite does not exist: point --data-dir or --database at the issuer's data/
        : /^Error: postgres:\/\/.* has no administrator application yet: start the issuer on it once/,
    );
    if (driver === 'sqlite') expect(existsSync(join(dir, '.data'))).toBe(false);
  });
});

describe('admin reset-secret', () => {
  it('refuses fixed credentials and in-memory databases, naming what the user set', async () => {
    err = [];
    const fixed = { GATEHOUSE_ADMIN_CLIENT_ID: 'ci-admin', GATEHOUSE_ADMIN_CLIENT_SECRET: 's'.repeat(40) };
    expect((await runCli(['admin', 'reset-secret'], io(fixed))).code).toBe(2);
    expect(err.join('')).toBe(
      'Configuration error: "GATEHOUSE_ADMIN_CLIENT_SECRET" fixes the administrator secret: change it there and restart the issuer instead of resetting it\n',
    );
    err = [];
    expect((await runCli(['admin', 'reset-secret', '--database', ':memory:'], io({}))).code).toBe(2);
    expect(err.join('')).toBe(
      'Configuration error: "--database" is ":memory:", which holds no administrator to reset\n',
    );
  });
});
