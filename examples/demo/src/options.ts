/**
 * The demo's options, from flags and environment variables (flags win):
 *
 * | flag               | environment           | default |
 * | ------------------ | --------------------- | ------- |
 * | `--issuer-port`    | `DEMO_ISSUER_PORT`    | 3001    |
 * | `--api-port`       | `DEMO_API_PORT`       | 4001    |
 * | `--backend-port`   | `DEMO_BACKEND_PORT`   | 4100    |
 * | `--console-port`   | `DEMO_CONSOLE_PORT`   | 4200    |
 * | `--once`           | `CI` (any non-empty value) | keep serving after the flow |
 *
 * Port 0 picks a free port. Everything listens on 127.0.0.1 only.
 *
 * @module
 */

/** The four servers of the demo. */
export const SERVERS = Object.freeze(['issuer', 'api', 'backend', 'console'] as const);

/** One of {@link SERVERS}. */
export type ServerName = (typeof SERVERS)[number];

/** Options of the demo. */
export interface DemoOptions {
  /** TCP port of each server (0: any free port). */
  readonly ports: Readonly<Record<ServerName, number>>;
  /** Stop after the scripted flow instead of serving until Ctrl-C. */
  readonly once: boolean;
}

/** Defaults: the ports the README and the docs use. */
export const DEFAULTS: DemoOptions = Object.freeze({
  ports: Object.freeze({ issuer: 3001, api: 4001, backend: 4100, console: 4200 }),
  once: false,
});

/** Flag and environment variable of each port. */
export const PORT_SOURCES: Readonly<Record<ServerName, { flag: string; env: string }>> = Object.freeze({
  issuer: { flag: '--issuer-port', env: 'DEMO_ISSUER_PORT' },
  api: { flag: '--api-port', env: 'DEMO_API_PORT' },
  backend: { flag: '--backend-port', env: 'DEMO_BACKEND_PORT' },
  console: { flag: '--console-port', env: 'DEMO_CONSOLE_PORT' },
});

/** A bad flag or value: the message is meant for the person who typed it. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export const USAGE = `usage: ./dev demo [--once] [--issuer-port N] [--api-port N] [--backend-port N] [--console-port N]
  --once   run the scripted flow and exit (also when CI is set)
  ports    also DEMO_ISSUER_PORT, DEMO_API_PORT, DEMO_BACKEND_PORT, DEMO_CONSOLE_PORT; 0 picks a free one`;

function port(value: string, source: string): number {
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65_535) {
    throw new UsageError(`${source} must be a port number between 0 and 65535`);
  }
  return Number(value);
}

/**
 * Parse the command line (without `node` and the script) and the environment.
 *
 * @example
 * ```ts
 * parseOptions(['--once', '--api-port', '5001'], {}); // { ports: { issuer: 3001, api: 5001, … }, once: true }
 * parseOptions(['--api-port=5001'], { CI: '1' }).once; // true
 * ```
 */
export function parseOptions(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): DemoOptions {
  const ports: Record<ServerName, number> = { ...DEFAULTS.ports };
  for (const name of SERVERS) {
    const value = env[PORT_SOURCES[name].env];
    if (value !== undefined && value !== '') ports[name] = port(value, PORT_SOURCES[name].env);
  }
  let once = (env.CI ?? '') !== '';
  const args = argv.filter((arg) => arg !== '--'); // `pnpm run demo -- --once` passes the "--" on
  for (let i = 0; i < args.length; i++) {
    const [flag, inline] = args[i]!.split(/=(.*)/s, 2) as [string, string | undefined];
    if (flag === '--once' && inline === undefined) {
      once = true;
      continue;
    }
    if (flag === '--help' || flag === '-h') throw new UsageError(USAGE);
    const name = SERVERS.find((server) => PORT_SOURCES[server].flag === flag);
    if (name === undefined) throw new UsageError(`unknown option ${flag}\n${USAGE}`);
    const value = inline ?? args[++i];
    if (value === undefined) throw new UsageError(`${flag} needs a port number`);
    ports[name] = port(value, flag);
  }
  const used = SERVERS.filter((name) => ports[name] !== 0).map((name) => ports[name]);
  if (new Set(used).size !== used.length) throw new UsageError('each server needs its own port');
  return { ports, once };
}
