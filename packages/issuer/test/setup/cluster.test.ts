/**
 * The throwaway PostgreSQL cluster of the tests and the storage benchmark (`cluster.ts`) does not
 * outlive the process that started it: `pg_ctl` runs the server as a daemon, so a run interrupted by
 * a signal must stop it itself (`./dev test` leaves nothing running).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { describe, expect, it } from 'vitest';

async function holdCluster(): Promise<{ url: string; child: ReturnType<typeof spawn> }> {
  const child = spawn(process.execPath, [join(import.meta.dirname, 'fixtures/hold-cluster.mjs')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [url] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  return { url, child };
}

const reachable = async (url: string): Promise<boolean> => {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
};

describe('the throwaway PostgreSQL cluster', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    'is stopped when its process gets %s',
    async (signal) => {
      const { url, child } = await holdCluster();
      try {
        expect(await reachable(url)).toBe(true);
        const exited = once(child, 'exit');
        child.kill(signal);
        const [, by] = (await exited) as [number | null, NodeJS.Signals | null];
        expect(by).toBe(signal);
        expect(await reachable(url)).toBe(false);
      } finally {
        child.kill('SIGKILL');
      }
    },
    60_000,
  );
});
