/**
 * A throwaway `redis-server` on a free loopback port, for the tests and the benchmark
 * (`bench/replay.bench.mjs` imports this file directly). Self-contained on purpose (only `node:`
 * modules and the repository's port picker, imported as `.ts`), so Node runs it without a build step.
 *
 * The server runs in the foreground of its own process group with persistence off (`--save ''`,
 * `--appendonly no`) in a temporary directory, listening on 127.0.0.1 only. `stop()` ends the group
 * (the server and anything it forked) and can be followed by `start()` on the same port, which is how
 * the tests simulate an outage and a recovery. Every server still running when the process exits is
 * killed, and on Linux the kernel kills it if the process that started it dies without exiting cleanly.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { freePort } from '../../../../test/support/ports.ts';

/** A running (or stopped, then restartable) server. */
export interface RedisServer {
  /** The loopback port, kept across `stop()` and `start()`. */
  readonly port: number;
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  /** Whether the server process is running. */
  readonly running: boolean;
  /** Start the server again on the same port after `stop()`; resolves when it answers PING. */
  start(): Promise<void>;
  /** Stop the server (SIGTERM to its process group, SIGKILL after 5 s); resolves when it has exited. */
  stop(): Promise<void>;
  /** `stop()`, then remove its directory. */
  dispose(): Promise<void>;
}

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) killGroup(child, 'SIGKILL');
});

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

/** The `redis-server` binary on PATH (or in /usr/bin, /usr/local/bin), or `undefined`. */
export function findRedisServer(): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/local/bin', '/usr/bin', '/usr/sbin'];
  for (const dir of dirs) {
    if (dir !== '' && existsSync(join(dir, 'redis-server'))) return join(dir, 'redis-server');
  }
  return undefined;
}

/** One raw `PING` over TCP: resolves `true` on `+PONG`, `false` on any error or after 500 ms. */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let answer = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
      if (answer.includes('\r\n')) done(answer.startsWith('+PONG'));
    });
  });
}

// On Linux, `setpriv --pdeathsig KILL` makes the kernel kill the server when the process (or worker
// thread) that started it dies, so even a test worker that is killed outright leaves no server behind.
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((path) => existsSync(path));

function launch(bin: string, port: number, dir: string): { child: ChildProcess; output: () => string } {
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
    '--daemonize',
    'no',
    '--logfile',
    '',
    '--loglevel',
    'warning',
  ];
  const [file, argv] =
    SETPRIV === undefined ? [bin, args] : [SETPRIV, ['--pdeathsig', 'KILL', '--', bin, ...args]];
  const child = spawn(file, argv, { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  live.add(child);
  child.once('exit', () => live.delete(child));
  return { child, output: () => output };
}

/** Wait until the server answers PING, or throw when it exits or takes longer than 10 s. */
async function waitUntilReady(child: ChildProcess, port: number, output: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(
        `redis-server exited (${child.exitCode ?? child.signalCode}) on port ${port}:\n${output()}`,
      );
    }
    if (await ping(port)) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  killGroup(child, 'SIGKILL');
  throw new Error(`redis-server did not answer PING on port ${port} within 10 s:\n${output()}`);
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Start a server on a free loopback port. Throws, saying what to install, when `redis-server` is not
 * found (`./dev test` installs the Debian package `redis-server` when run as root).
 */
export async function startRedisServer(): Promise<RedisServer> {
  const bin = findRedisServer();
  if (bin === undefined) {
    throw new Error(
      'redis-server not found on PATH. The @gatehouse/redis tests and benchmark start a throwaway Redis: ' +
        'install the Debian package "redis-server" (./dev test does it when run as root), or put redis-server on PATH.',
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-redis-'));
  let current: ChildProcess | undefined;
  let port = 0;
  for (let attempt = 0; current === undefined; attempt++) {
    port = await freePort();
    const { child, output } = launch(bin, port, dir);
    try {
      await waitUntilReady(child, port, output);
      current = child;
    } catch (err) {
      // Another process took the port between the probe and the start: try another one.
      killGroup(child, 'SIGKILL');
      await exited(child);
      if (attempt >= 2) {
        rmSync(dir, { recursive: true, force: true });
        throw err;
      }
    }
  }

  const stop = async () => {
    const child = current;
    if (child === undefined) return;
    current = undefined;
    const killer = setTimeout(() => killGroup(child, 'SIGKILL'), 5_000);
    killGroup(child, 'SIGTERM');
    await exited(child);
    clearTimeout(killer);
    // Anything the server forked is in its group: make sure none outlives it.
    killGroup(child, 'SIGKILL');
  };

  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    get running() {
      return current !== undefined;
    },
    async start() {
      if (current !== undefined) return;
      const { child, output } = launch(bin, port, dir);
      await waitUntilReady(child, port, output);
      current = child;
    },
    stop,
    async dispose() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
