/**
 * A throwaway PostgreSQL cluster on a free loopback port, for tests (`postgres.ts`, the vitest global
 * setup) and the storage benchmark (`bench/storage.bench.mjs`, which imports this file directly).
 * Self-contained on purpose (only `node:` modules, `pg` and the repository's port
 * picker, imported as `.ts`), so Node runs it without a build step.
 *
 * Finds the server binaries (Debian's /usr/lib/postgresql/<version>/bin, newest first, or PATH), runs
 * initdb in a temporary directory, starts `postgres` listening on 127.0.0.1 only (its Unix socket in
 * that directory, fsync off: the data is thrown away) and creates one database. initdb refuses to run
 * as root, so as root (CI) the cluster runs as the `postgres` OS user.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import pg from 'pg';
import { freePort } from '../../../../test/support/ports.ts';

/** Signals that end a test or benchmark run early; the cluster is stopped on each. */
const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** A running cluster. */
export interface Cluster {
  /** `postgres://postgres@127.0.0.1:<port>/<database>`. */
  readonly url: string;
  /** Server version, e.g. `15.18`. */
  readonly version: string;
  /** Stop the server and remove its directory. */
  stop(): void;
}

/** The directory holding initdb and pg_ctl, or `undefined`. */
export function findBinaries(): string | undefined {
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((name) => /^\d+$/.test(name))
      .sort((a, b) => Number(b) - Number(a));
    for (const version of versions) {
      const bin = join(debian, version, 'bin');
      if (existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'pg_ctl'))) return bin;
    }
  }
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir !== '' && existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dir;
  }
  return undefined;
}

/** Start a cluster with one database called `database`. Throws, saying what to install, without binaries. */
export async function startCluster(database: string, settings: readonly string[] = []): Promise<Cluster> {
  const bin = findBinaries();
  if (bin === undefined) {
    throw new Error(
      'PostgreSQL server binaries (initdb, pg_ctl) not found in /usr/lib/postgresql/*/bin or on PATH. ' +
        "The issuer's storage tests and benchmark run a throwaway PostgreSQL cluster: install the Debian " +
        'package "postgresql" (./dev test does it when run as root), or put the binaries on PATH.',
    );
  }
  const asRoot = process.getuid?.() === 0;
  const run = (command: string, args: readonly string[]) => {
    const [file, argv] = asRoot
      ? ['runuser', ['-u', 'postgres', '--', join(bin, command), ...args]]
      : [join(bin, command), [...args]];
    return execFileSync(file, argv, { stdio: 'pipe', encoding: 'utf8' });
  };
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-pg-'));
  const data = join(dir, 'data');
  const log = join(dir, 'postgres.log');
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    process.removeListener('exit', stop);
    for (const signal of SIGNALS) process.removeListener(signal, onSignal);
    try {
      run('pg_ctl', ['stop', '-D', data, '-m', 'immediate', '-w']);
    } catch {
      // Not running (a failed start): nothing to stop.
    }
    rmSync(dir, { recursive: true, force: true });
  };
  // `pg_ctl` starts a daemon that outlives this process: stop it when this process exits or is
  // interrupted (a test run cut short must not leave a server behind), then die of the signal as
  // this process would have.
  const onSignal = (signal: NodeJS.Signals) => {
    stop();
    process.kill(process.pid, signal);
  };
  process.once('exit', stop);
  for (const signal of SIGNALS) process.once(signal, onSignal);
  try {
    run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
    let base: string | undefined;
    for (let attempt = 0; base === undefined; attempt++) {
      const port = await freePort();
      const options = [
        '-c listen_addresses=127.0.0.1',
        `-p ${port}`,
        `-c unix_socket_directories=${dir}`,
        '-c fsync=off',
        '-c synchronous_commit=off',
        '-c full_page_writes=off',
        '-c max_connections=300',
        ...settings.map((setting) => `-c ${setting}`),
      ].join(' ');
      try {
        run('pg_ctl', ['start', '-D', data, '-l', log, '-w', '-t', '60', '-o', options]);
        base = `postgres://postgres@127.0.0.1:${port}`;
      } catch (err) {
        // Another process took the port between the probe and the start: try another one.
        if (attempt >= 2) {
          const tail = existsSync(log) ? readFileSync(log, 'utf8').split('\n').slice(-20).join('\n') : '';
          throw new Error(`PostgreSQL did not start: ${(err as Error).message}\n${tail}`);
        }
      }
    }
    const admin = new pg.Client({ connectionString: `${base}/postgres` });
    await admin.connect();
    let version: string;
    try {
      await admin.query(`CREATE DATABASE ${database}`);
      version = String((await admin.query('SHOW server_version')).rows[0].server_version).split(' ')[0]!;
    } finally {
      await admin.end();
    }
    return { url: `${base}/${database}`, version, stop };
  } catch (err) {
    stop();
    throw err;
  }
}
