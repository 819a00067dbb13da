/**
 * `node src/run.ts` as `./dev demo` runs it (built packages, Node's type stripping), in a child process:
 * `--once` runs the flow and exits 0 with the temporary data gone; a busy port is one clear line and
 * exit 1; when serving, SIGINT closes everything and exits 0.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const RUN = join(import.meta.dirname, '../src/run.ts');
const FREE = { DEMO_ISSUER_PORT: '0', DEMO_API_PORT: '0', DEMO_BACKEND_PORT: '0', DEMO_CONSOLE_PORT: '0' };
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

function demo(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [RUN, ...args], {
    env: { ...process.env, ...FREE, CI: '', NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const output = { stdout: '', stderr: '' };
  child.stdout!.on('data', (chunk) => (output.stdout += chunk));
  child.stderr!.on('data', (chunk) => (output.stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output, exited };
}

const dataDirOf = (stdout: string) => /SQLite in (\S+)/.exec(stdout)?.[1];

describe('./dev demo (src/run.ts)', () => {
  it('with --once runs the flow, prints every step, exits 0 and deletes its data', async () => {
    const { output, exited } = demo(['--once']);
    expect(await exited).toBe(0);
    expect(output.stdout).toContain('All 10 steps behaved as promised.');
    expect(output.stdout).toMatch(/^6\. A stolen copy of the impersonation token is used$/m);
    expect(output.stdout).toMatch(/^9\. The support lead ends the impersonation$/m);
    expect(output.stdout).toMatch(/^10\. The issuer’s audit trail records who did what$/m);
    expect(output.stdout).not.toContain('The servers keep running');
    expect(output.stdout).not.toMatch(/eyJ[\w-]+\.[\w-]+\.[\w-]+|sub_[\w-]{20,}/);
    expect(output.stderr).toBe('');
    const dir = dataDirOf(output.stdout);
    expect(dir).toMatch(/gatehouse-demo-/);
    expect(existsSync(dir!)).toBe(false);
  });

  it('when CI is set, stops after the flow too', async () => {
    const { output, exited } = demo([], { CI: '1' });
    expect(await exited).toBe(0);
    expect(output.stdout).toContain('All 10 steps behaved as promised.');
  });

  it('says in one line which port is busy, and exits 1 without a stack trace', async () => {
    const busy: Server = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as AddressInfo).port;
    try {
      const { output, exited } = demo(['--once', '--api-port', String(port)]);
      expect(await exited).toBe(1);
      expect(output.stderr).toBe(
        `demo: port ${port} (api) is already in use: stop what uses it, or pick another with --api-port N or DEMO_API_PORT=N\n`,
      );
      expect(output.stdout).toBe('');
    } finally {
      busy.close();
    }
  });

  it('refuses a bad option with the usage, exit 1', async () => {
    const { output, exited } = demo(['--port', '1']);
    expect(await exited).toBe(1);
    expect(output.stderr).toMatch(/^demo: unknown option --port\nusage: \.\/dev demo/);
  });

  it('keeps serving after the flow, and Ctrl-C (SIGINT) closes everything and deletes its data', async () => {
    const { child, output, exited } = demo([]);
    await expect
      .poll(() => output.stdout, { timeout: 20_000, interval: 100 })
      .toContain('Ctrl-C stops everything.');
    const console = /(http:\/\/127\.0\.0\.1:\d+)\/ {2}the support console/.exec(output.stdout)![1]!;
    expect((await fetch(`${console}/`)).status).toBe(200);
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(output.stdout).toContain('Stopping: servers closed, temporary data deleted.');
    expect(existsSync(dataDirOf(output.stdout)!)).toBe(false);
    await expect(fetch(`${console}/`)).rejects.toThrow();
  });
});
