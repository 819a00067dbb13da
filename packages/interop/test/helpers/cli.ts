/**
 * The issuer as users run it: the built CLI (`gatehouse-issuer`, `packages/issuer/dist/cli.js`) as real
 * processes. `ensureBuilt` rebuilds the issuer when its sources are newer than `dist/` (`./dev test`
 * builds every package first, so there it never does).
 */
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ISSUER = join(import.meta.dirname, '..', '..', '..', 'issuer');
const CLI = join(ISSUER, 'dist', 'cli.js');

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

const CONSOLE = join(ISSUER, '..', 'console');

/**
 * Build the issuer's `dist/` when missing or older than its sources or the console's (the private
 * package `@gatehouse/console`, whose Vite build the issuer copies into `dist/console`): the console,
 * then tsup, then the copy — the order of the workspace build.
 */
export function ensureBuilt(): void {
  const newest = Math.max(
    newestSource(join(ISSUER, 'src')),
    newestSource(join(CONSOLE, 'src')),
    ...['index.html', 'vite.config.ts'].map((file) => statSync(join(CONSOLE, file)).mtimeMs),
  );
  if (existsSync(CLI) && statSync(CLI).mtimeMs >= newest) return;
  const bin = (dir: string, name: string) => join(dir, 'node_modules', '.bin', name);
  execFileSync(bin(CONSOLE, 'vite'), ['build'], { cwd: CONSOLE, stdio: 'pipe' });
  execFileSync(bin(ISSUER, 'tsup'), [], { cwd: ISSUER, stdio: 'pipe' });
  execFileSync(process.execPath, ['scripts/copy-console.mjs'], { cwd: ISSUER, stdio: 'pipe' });
}

/** Pick a free loopback port by binding to 0 first. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Run a one-shot CLI command (`seed file.json` …) to completion; resolves to what it printed on stderr. */
export async function runCli(args: readonly string[], env: Record<string, string>): Promise<string> {
  const { stderr } = await promisify(execFile)(process.execPath, [CLI, ...args], {
    cwd: ISSUER,
    env: { ...process.env, GATEHOUSE_LOG_LEVEL: 'warn', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return stderr;
}

/** One running `gatehouse-issuer start` process. */
export interface CliProcess {
  readonly child: ChildProcess;
  /** What it printed on standard error. */
  stderr(): string;
  stop(): Promise<void>;
}

/** Start `gatehouse-issuer start` on `port`; resolves once `/health` answers 200 (30 s at most). */
export async function startCli(
  baseUrl: string,
  port: number,
  env: Record<string, string>,
): Promise<CliProcess> {
  const child = spawn(
    process.execPath,
    [CLI, 'start', '--port', String(port), '--host', '127.0.0.1', '--base-url', baseUrl],
    {
      cwd: ISSUER,
      env: { ...process.env, GATEHOUSE_LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the issuer exited (${child.exitCode}): ${stderr}`);
    const ok = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(2_000) }).then(
      (res) => res.status === 200,
      () => false,
    );
    if (ok) return { child, stderr: () => stderr, stop };
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the issuer did not become healthy: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
