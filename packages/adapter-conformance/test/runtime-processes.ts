/**
 * Starting the suite on Bun, Deno and workerd — binaries from the npm packages (`bun`, `deno`,
 * `workerd`), installed with the workspace — and stopping them, pass or fail: every process is
 * started in its own process group and the whole group is killed on close.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { build } from 'esbuild';
import { freePort } from '../../../test/support/ports.js';
import type { ServeConfig } from '../src/runtimes/serve-config.js';

const PACKAGE = join(import.meta.dirname, '..');
const bin = (name: string) => join(PACKAGE, 'node_modules', '.bin', name);
const entry = (name: string) => join(PACKAGE, 'src', 'runtimes', name);

/** A runtime process serving one app per variant. */
export interface RuntimeProcess {
  /** The loopback port of each variant. */
  readonly ports: ReadonlyMap<string, number>;
  close(): Promise<void>;
}

/** Stop a process group: SIGTERM, then SIGKILL if it has not exited within 5 s. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  const kill = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // Already gone.
    }
  };
  kill('SIGTERM');
  const timer = setTimeout(() => kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

/** Spawn `command` in its own group and wait for a `LISTENING <variant> <port>` line per variant. */
async function launch(
  command: string,
  args: readonly string[],
  variants: readonly string[],
  env: NodeJS.ProcessEnv = {},
  cleanup: () => Promise<void> = async () => {},
): Promise<RuntimeProcess> {
  const child = spawn(command, args, {
    cwd: PACKAGE,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env, NO_COLOR: '1' },
  });
  const close = async () => {
    await stop(child);
    await cleanup();
  };
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = `${stderr}${chunk.toString('utf8')}`.slice(-4000);
  });
  const ports = new Map<string, number>();
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${command}: not listening after 60 s\n${stderr}`)),
        60_000,
      );
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`${command} exited (${code})\n${stderr}`));
      });
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const match = /^LISTENING (\S+) (\d+)$/.exec(line.trim());
        if (match === null) return;
        ports.set(match[1]!, Number(match[2]));
        if (variants.every((v) => ports.has(v))) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
  } catch (error) {
    await close();
    throw error;
  }
  return { ports, close };
}

/** Bundle a runtime entry with the export conditions of that runtime (what its own bundler would pick). */
async function bundle(name: string, conditions: string[], dir: string): Promise<string> {
  const outfile = join(dir, name.replace(/\.ts$/, '.js'));
  await build({
    entryPoints: [entry(name)],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    conditions,
    mainFields: ['module', 'main'],
    outfile,
    logLevel: 'silent',
  });
  return outfile;
}

/** Bun runs the entry from source, so its own resolver picks `@gatehouse/core`'s `bun` build. */
export function startBun(config: ServeConfig): Promise<RuntimeProcess> {
  return launch(
    bin('bun'),
    ['run', entry('bun-server.ts'), JSON.stringify(config)],
    config.variants.map((v) => v.variant),
  );
}

/** Deno runs the entry bundled with the `deno` condition, allowed the network only. */
export async function startDeno(config: ServeConfig): Promise<RuntimeProcess> {
  const dir = await mkdtemp(join(tmpdir(), 'gatehouse-deno-'));
  const script = await bundle('deno-server.ts', ['deno'], dir);
  return launch(
    bin('deno'),
    ['run', '--allow-net', '--no-prompt', script, JSON.stringify(config)],
    config.variants.map((v) => v.variant),
    { DENO_NO_UPDATE_CHECK: '1' },
    () => rm(dir, { recursive: true, force: true }),
  );
}

const capnpString = (text: string) => JSON.stringify(text);

/**
 * workerd serves one Worker service per variant (the bundled worker.ts with that variant's `CONFIG`),
 * each on its own loopback socket. Its `internet` network may reach loopback, where the JWKS is.
 */
export async function startWorkerd(config: ServeConfig): Promise<RuntimeProcess> {
  const dir = await mkdtemp(join(tmpdir(), 'gatehouse-workerd-'));
  await bundle('worker.ts', ['workerd', 'worker', 'browser'], dir);
  const ports = new Map<string, number>();
  for (const v of config.variants) ports.set(v.variant, await freePort());
  const services = config.variants.map(
    (v, i) => `(name = "v${i}", worker = (
      modules = [(name = "worker", esModule = embed "worker.js")],
      compatibilityDate = "2025-09-01",
      bindings = [(name = "CONFIG", text = ${capnpString(JSON.stringify({ app: config.app, variants: [v] }))})],
    ))`,
  );
  const sockets = config.variants.map(
    (v, i) => `(name = "s${i}", address = "127.0.0.1:${ports.get(v.variant)}", http = (), service = "v${i}")`,
  );
  const capnp = `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    ${services.join(',\n    ')},
    (name = "internet", network = (allow = ["public", "private", "local"])),
  ],
  sockets = [
    ${sockets.join(',\n    ')},
  ],
);
`;
  await writeFile(join(dir, 'config.capnp'), capnp);
  // workerd prints nothing when it listens: announce each socket once it accepts connections.
  return launch(
    'bash',
    [
      '-c',
      `"$0" serve "$1" --verbose & pid=$!; for p in ${[...ports.entries()].map(([v, p]) => `${v}:${p}`).join(' ')}; do port=\${p##*:}; until (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null; do sleep 0.1; done; echo "LISTENING \${p%%:*} $port"; done; wait $pid`,
      bin('workerd'),
      join(dir, 'config.capnp'),
    ],
    config.variants.map((v) => v.variant),
    {},
    () => rm(dir, { recursive: true, force: true }),
  );
}
