/**
 * A real Prometheus (Debian's `prometheus` binary, which `./dev test` installs) scraping the issuer's
 * own-port `/metrics` on loopback every second with the bearer token, then asked through its HTTP API
 * (`/api/v1/query`) for the count of tokens after N token requests. The test starts it in a temporary
 * directory on a free loopback port and stops it, pass or fail.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenRequest } from '../helpers/agent.js';
import { loadWorld, ORDERS, SECRETS } from '../helpers/fixtures.js';
import { freePort, startIssuer, type TestIssuer } from '../helpers/issuer.js';
import { eventually } from '../helpers/webhook-receiver.js';

const TOKEN = 'prometheus-scrape-token-0123456789abcdef';
const N = 7;
const PROMETHEUS = ['/usr/bin/prometheus', '/usr/local/bin/prometheus'].find((path) => existsSync(path));

describe('a real Prometheus scraping /metrics', () => {
  let t: TestIssuer;
  let dir: string;
  let prometheus: ChildProcess | undefined;
  let api: string;
  let output = '';

  beforeAll(async () => {
    expect(PROMETHEUS, 'the prometheus binary (apt-get install prometheus; ./dev test does)').toBeDefined();
    t = await startIssuer('sqlite', {
      telemetry: { prometheus: 'own-port', prometheusPort: 0, prometheusToken: TOKEN },
    });
    await loadWorld(t);
    dir = await mkdtemp(join(tmpdir(), 'gatehouse-prometheus-'));
    // The token in a file of its own (never on the command line, where every user sees it).
    await writeFile(join(dir, 'token'), TOKEN, { mode: 0o600 });
    await writeFile(
      join(dir, 'prometheus.yml'),
      [
        'global:',
        '  scrape_interval: 1s',
        '  scrape_timeout: 1s',
        'scrape_configs:',
        '  - job_name: gatehouse-issuer',
        '    authorization:',
        `      credentials_file: ${join(dir, 'token')}`,
        '    static_configs:',
        `      - targets: ['127.0.0.1:${t.issuer.metricsAddress!.port}']`,
        '',
      ].join('\n'),
    );
    const port = await freePort();
    api = `http://127.0.0.1:${port}/api/v1`;
    prometheus = spawn(
      PROMETHEUS!,
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    prometheus.stdout!.on('data', (chunk: Buffer) => (output += chunk));
    prometheus.stderr!.on('data', (chunk: Buffer) => (output += chunk));
  }, 30_000);

  afterAll(async () => {
    if (prometheus !== undefined && prometheus.exitCode === null) {
      const exited = new Promise((resolve) => prometheus!.once('exit', resolve));
      prometheus.kill('SIGTERM');
      await exited;
    }
    await t?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  }, 30_000);

  /** The numbers an instant query answers (one per series). */
  const query = async (promql: string): Promise<number[]> => {
    const res = await fetch(`${api}/query?query=${encodeURIComponent(promql)}`).catch(() => undefined);
    if (res === undefined || res.status !== 200) return [];
    const body = (await res.json()) as { data: { result: { value: [number, string] }[] } };
    return body.data.result.map((series) => Number(series.value[1]));
  };

  it(`counts ${N} token requests, scraped with the bearer token`, async () => {
    const worker = { clientId: 'worker', clientSecret: SECRETS.worker };
    for (let i = 0; i < N; i++) {
      const res = await tokenRequest(
        t.baseUrl,
        { grant_type: 'client_credentials', resource: ORDERS },
        worker,
      );
      expect(res.status).toBe(200);
    }
    const values = await eventually(
      () =>
        query(
          'gatehouse_issuer_tokens_issued_total{gatehouse_client_id="worker",gatehouse_grant_type="client_credentials"}',
        ),
      (found) => found[0] === N,
      30_000,
    ).catch((err: Error) => {
      throw new Error(`${err.message}\nprometheus said:\n${output.slice(-2_000)}`);
    });
    expect(values).toEqual([N]);
    expect(await query('up{job="gatehouse-issuer"}')).toEqual([1]);
    const rate = await query('sum(db_client_operation_duration_count{db_system_name="sqlite"})');
    expect(rate[0]).toBeGreaterThan(0);
    expect(output).not.toContain(TOKEN);
  }, 60_000);
});
