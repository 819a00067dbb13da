/**
 * A real load balancer for tests: Debian's HAProxy on loopback, in front of issuer instances, taking
 * an instance out of rotation when its readiness probe fails and back in when it passes, as a
 * production balancer does. `./dev test` installs the `haproxy` package when it is missing. Its stats
 * page (CSV) says which backends are up.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './issuer.js';

/** Where Debian installs it (root's PATH has /usr/sbin; a test runner's may not). */
const CANDIDATES = ['/usr/sbin/haproxy', '/usr/bin/haproxy', '/usr/local/sbin/haproxy'];

/** One server behind the balancer. */
export interface HaproxyBackend {
  readonly name: string;
  readonly port: number;
}

/** How the balancer checks its servers. */
export interface HaproxyOptions {
  /** The path of the readiness probe (`GET`, 200 = in rotation). */
  readonly check: string;
  /** Milliseconds between checks of each server. Default 250. */
  readonly interval?: number;
  /** Failed checks before a server is taken out (and passed ones before it is back in). Default 2. */
  readonly threshold?: number;
}

/** A running HAProxy. */
export interface Haproxy {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly port: number;
  /** Each server's state as HAProxy sees it now (`UP`, `DOWN`, `UP 1/2` …). */
  states(): Promise<Record<string, string>>;
  /** Resolves once `server` is in the state `state` (rejects after `timeout` ms). */
  until(server: string, state: 'UP' | 'DOWN', timeout?: number): Promise<void>;
  /** What it printed (warnings, alerts). */
  output(): string;
  /** Stop it (SIGTERM, then SIGKILL after 5 s); resolves once it has exited. */
  close(): Promise<void>;
}

/** The path of the haproxy binary; throws saying what to install when there is none. */
export function haproxyBinary(): string {
  const found = CANDIDATES.find((path) => existsSync(path));
  if (found === undefined)
    throw new Error('haproxy not found: install the Debian package haproxy (./dev test installs it)');
  return found;
}

/**
 * Start HAProxy on `port` (a free one by default) in front of `backends`, round robin, checking
 * `options.check` on each; `dir` holds its configuration file.
 */
export async function startHaproxy(
  dir: string,
  backends: readonly HaproxyBackend[],
  options: HaproxyOptions,
  port?: number,
): Promise<Haproxy> {
  const binary = haproxyBinary();
  port ??= await freePort();
  const statsPort = await freePort();
  const interval = options.interval ?? 250;
  const threshold = options.threshold ?? 2;
  const config = join(dir, 'haproxy.cfg');
  writeFileSync(
    config,
    [
      'global',
      '  nbthread 1',
      '  maxconn 2000',
      'defaults',
      '  mode http',
      '  timeout connect 2s',
      '  timeout client 60s',
      '  timeout server 60s',
      '  timeout check 2s',
      // A connection refused (an instance not taken out yet) is tried again on another server; a request
      // already sent to a server is never sent twice.
      '  retries 3',
      '  option redispatch',
      'frontend issuers',
      `  bind 127.0.0.1:${port}`,
      '  default_backend instances',
      'backend instances',
      '  balance roundrobin',
      '  option forwardfor',
      '  option httpchk',
      `  http-check send meth GET uri ${options.check} ver HTTP/1.1 hdr Host 127.0.0.1`,
      '  http-check expect status 200',
      ...backends.map(
        (backend) =>
          `  server ${backend.name} 127.0.0.1:${backend.port} check inter ${interval} fall ${threshold} rise ${threshold}`,
      ),
      'listen stats',
      `  bind 127.0.0.1:${statsPort}`,
      '  stats enable',
      '  stats uri /stats',
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(binary, ['-db', '-f', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));

  const states = async (): Promise<Record<string, string>> => {
    const csv = await (
      await fetch(`http://127.0.0.1:${statsPort}/stats;csv`, { signal: AbortSignal.timeout(2_000) })
    ).text();
    const [header, ...rows] = csv.trim().split('\n');
    const columns = header!.replace(/^# /, '').split(',');
    const [proxy, server, status] = ['pxname', 'svname', 'status'].map((name) => columns.indexOf(name));
    const found: Record<string, string> = {};
    for (const row of rows) {
      const cells = row.split(',');
      if (cells[proxy!] === 'instances' && cells[server!] !== 'BACKEND')
        found[cells[server!]!] = cells[status!]!;
    }
    return found;
  };

  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
  };

  const haproxy: Haproxy = {
    url: `http://127.0.0.1:${port}`,
    port,
    states,
    async until(server, state, timeout = 30_000) {
      const deadline = Date.now() + timeout;
      for (;;) {
        const now = await states().catch(() => ({}) as Record<string, string>);
        if (now[server] === state) return;
        if (Date.now() > deadline)
          throw new Error(`haproxy: ${server} not ${state} after ${timeout} ms (${JSON.stringify(now)})`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    output: () => output,
    close,
  };
  // Ready once its stats page answers.
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`haproxy exited (${child.exitCode}): ${output}`);
    if (
      await states().then(
        () => true,
        () => false,
      )
    )
      return haproxy;
    if (Date.now() > deadline) {
      await close();
      throw new Error(`haproxy did not start: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
