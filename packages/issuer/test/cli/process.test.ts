/**
 * The built CLI as a real process (`node dist/cli.js`): `--version` prints the package's version, and a
 * first start on a taken port says so in one line, exits non-zero and creates nothing, so the next
 * start on a free port is a real first start that prints a working administrator secret. Every
 * process started here is stopped, pass or fail.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/instances.js';
import { freePort } from '../helpers/issuer.js';

const PACKAGE = join(import.meta.dirname, '..', '..');
const CLI = join(PACKAGE, 'dist', 'cli.js');
const children = new Set<ChildProcess>();
let dir: string;

beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-process-'));
});
afterEach(async () => {
  await Promise.all([...children].map(stop));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Environment of the child: no settings inherited from the test run. */
const env = () => {
  const clean: NodeJS.ProcessEnv = { ...process.env, GATEHOUSE_LOG_LEVEL: 'warn' };
  for (const name of Object.keys(clean))
    if (name.startsWith('GATEHOUSE_') && name !== 'GATEHOUSE_LOG_LEVEL') delete clean[name];
  delete clean.DATABASE_URL;
  return clean;
};

async function stop(child: ChildProcess): Promise<void> {
  children.delete(child);
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/** Start `gatehouse-issuer start …`; resolves once it printed `until` or exited. */
async function startProcess(args: string[], until: RegExp) {
  const child = spawn(process.execPath, [CLI, 'start', ...args], {
    cwd: dir,
    env: env(),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.add(child);
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${until} within 30 s: ${stderr}`)), 30_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      if (until.test(stderr)) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
  return { child, stderr: () => stderr, exited };
}

describe('gatehouse-issuer (built)', () => {
  it('--version prints the version of @gatehouse/issuer', async () => {
    const { version } = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as {
      version: string;
    };
    const { stdout } = await promisify(execFile)(process.execPath, [CLI, '--version'], { cwd: dir });
    expect(stdout).toBe(`${version}\n`);
  });

  it('a first start on a taken port creates nothing; the next start prints a working secret', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const refused = await startProcess(['--port', String(port)], /(?!)/);
      expect(await refused.exited).toBe(1);
      expect(refused.stderr()).toBe(
        `Error: port ${port} on 127.0.0.1 is already in use: stop what uses it, or pick another port with --port N or GATEHOUSE_PORT=N\n`,
      );
      expect(existsSync(join(dir, '.data'))).toBe(false);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }

    const free = await freePort();
    const started = await startProcess(['--port', String(free)], /Get a Management API token:\n.*\n/);
    const text = started.stderr();
    expect(text).toContain('Administrator application created.');
    const clientId = /Client ID:\s+(\S+)/.exec(text)![1]!;
    const secret = /Client secret:\s+(\S+)/.exec(text)![1]!;
    const token = await fetch(`http://127.0.0.1:${free}/oidc/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}` },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        resource: `http://localhost:${free}/api`,
      }),
    });
    expect(token.status).toBe(200);
    const { access_token } = (await token.json()) as { access_token: string };
    const apps = await fetch(`http://127.0.0.1:${free}/api/applications`, {
      headers: { authorization: `Bearer ${access_token}` },
    });
    expect(apps.status).toBe(200);
    expect(((await apps.json()) as { items: Array<{ clientId: string }> }).items[0]!.clientId).toBe(clientId);
    await stop(started.child);
    expect(await started.exited).toBe(0);
  }, 60_000);
});
