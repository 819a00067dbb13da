/**
 * Several real issuer processes (`dist/cli.js start`) on one PostgreSQL database, behind a small
 * loopback load balancer, as they run in production. The CLI is rebuilt first when the sources are
 * newer than `dist/` (CI builds before testing, so there it never is).
 */
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Backend } from './balancer.js';
import { freePort } from './issuer.js';

const PACKAGE = join(import.meta.dirname, '..', '..');
const CLI = join(PACKAGE, 'dist', 'cli.js');

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

const CONSOLE = join(PACKAGE, '..', 'console');

/**
 * Build `dist/` as the package build does (the console's Vite build in packages/console, tsup, then
 * scripts/copy-console.mjs into `dist/console`) when it is missing or older than the issuer's `src/` or
 * the console's sources.
 */
export function ensureBuilt(): void {
  const newest = Math.max(
    newestSource(join(PACKAGE, 'src')),
    newestSource(join(CONSOLE, 'src')),
    ...['index.html', 'vite.config.ts'].map((file) => statSync(join(CONSOLE, file)).mtimeMs),
  );
  if (existsSync(CLI) && statSync(CLI).mtimeMs >= newest) return;
  const bin = (dir: string, name: string) => join(dir, 'node_modules', '.bin', name);
  execFileSync(bin(CONSOLE, 'vite'), ['build'], { cwd: CONSOLE, stdio: 'pipe' });
  execFileSync(bin(PACKAGE, 'tsup'), [], { cwd: PACKAGE, stdio: 'pipe' });
  execFileSync(process.execPath, ['scripts/copy-console.mjs'], { cwd: PACKAGE, stdio: 'pipe' });
}

/** Run a one-shot CLI command (`migrate`, `seed file.json` …) to completion; resolves to its stdout. */
export async function runCliProcess(args: readonly string[], env: Record<string, string>): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [CLI, ...args], {
    cwd: PACKAGE,
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  return stdout;
}

/** One running `gatehouse-issuer start` process. */
export interface Instance extends Backend {
  readonly name: string;
  /** Its own address (not the public base URL). */
  readonly url: string;
  readonly port: number;
  readonly child: ChildProcess;
  /** What it printed on standard error (banner, errors). */
  stderr(): string;
  /** Its log lines (standard output), when started with `{ logs: true }`; empty otherwise. */
  stdout(): string;
  /** Resolves when the process has exited. */
  readonly exited: Promise<number | null>;
}

/**
 * Start `gatehouse-issuer start` on a free loopback port (or `port`); resolves once `/health` answers
 * 200 (within `options.timeout` ms, default 30 s). `options.logs` keeps its standard output (the JSON
 * log lines) for `stdout()`.
 */
export async function startInstance(
  name: string,
  baseUrl: string,
  env: Record<string, string>,
  port?: number,
  options: { readonly logs?: boolean; readonly timeout?: number } = {},
): Promise<Instance> {
  port ??= await freePort();
  const child = spawn(
    process.execPath,
    [CLI, 'start', '--port', String(port), '--host', '127.0.0.1', '--base-url', baseUrl],
    {
      cwd: PACKAGE,
      env: { ...process.env, GATEHOUSE_LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', options.logs ? 'pipe' : 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  let stdout = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  // 'close': after the exit and once its output has been read to the end.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const instance: Instance = {
    name,
    url,
    port,
    child,
    stderr: () => stderr,
    stdout: () => stdout,
    exited,
    live: () => child.exitCode === null && child.signalCode === null,
  };
  const deadline = Date.now() + (options.timeout ?? 30_000);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited (${child.exitCode}): ${stderr}`);
    const ok = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2_000) }).then(
      (res) => res.status === 200,
      () => false,
    );
    if (ok) return instance;
    if (Date.now() > deadline) {
      await stopInstance(instance);
      throw new Error(`${name} did not become healthy: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Stop an instance (SIGTERM, then SIGKILL after 5 s) unless it has exited already. */
export async function stopInstance(instance: Instance): Promise<void> {
  if (instance.child.exitCode !== null || instance.child.signalCode !== null) return;
  instance.child.kill('SIGTERM');
  const timer = setTimeout(() => instance.child.kill('SIGKILL'), 5_000);
  await instance.exited;
  clearTimeout(timer);
}

/**
 * Start instances together; resolves to them once all are healthy. When one fails to start, those
 * that did are stopped before the first failure is thrown, so a test's `afterAll` has nothing left.
 *
 * @example
 * ```ts
 * const [a, b] = await startTogether([startInstance('A', baseUrl, env), startInstance('B', baseUrl, env)]);
 * ```
 */
export async function startTogether(starts: readonly Promise<Instance>[]): Promise<Instance[]> {
  const outcomes = await Promise.allSettled(starts);
  const started = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  const failed = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failed === undefined) return started;
  await Promise.all(started.map((instance) => stopInstance(instance)));
  throw failed.reason;
}
