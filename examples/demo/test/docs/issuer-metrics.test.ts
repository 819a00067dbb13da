/**
 * docs/observability.md, the issuer's part: an embedded issuer recording to the application's meter
 * provider counts the token it issues; the Prometheus endpoint of the page's sample answers only with
 * the token; the page's metric table names exactly the metrics of `ISSUER_TELEMETRY_NAMES`; the page's
 * Prometheus configuration and alert rules pass `promtool check` and the rules' unit tests
 * (prometheus/alerts.test.yml: each alert fires where it must and not before).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createIssuer, ISSUER_TELEMETRY_NAMES } from '@gatehouse/issuer';
import { type DataPoint, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { afterAll, describe, expect, it } from 'vitest';

const page = readFileSync(join(import.meta.dirname, '../../../../docs/observability.md'), 'utf8');
const prometheusDir = join(import.meta.dirname, 'prometheus');

/** A metric reader the test collects from. */
class CollectingReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

const servers: Server[] = [];
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** Serve `handler` on a free loopback port; resolves to its origin. */
async function serveOn(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function adminToken(origin: string, clientId: string, clientSecret: string) {
  return fetch(`${origin}/oidc/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource: 'http://127.0.0.1:3001/api' }),
  });
}

describe('docs/observability.md: the issuer', () => {
  it("records to the application's meter provider", async () => {
    const reader = new CollectingReader();
    const meterProvider = new MeterProvider({ readers: [reader] });
    const issuer = await createIssuer({
      baseUrl: 'http://127.0.0.1:3001',
      database: ':memory:',
      telemetry: { meterProvider }, // the application's: the issuer exports nothing itself
      log: { level: 'silent' },
    });
    try {
      const origin = await serveOn(issuer.handler);
      const res = await adminToken(origin, issuer.admin.adminClientId, issuer.admin.adminClientSecret!);
      expect(res.status).toBe(200);
      const { resourceMetrics } = await reader.collect();
      const issued = resourceMetrics.scopeMetrics
        .flatMap((scope) => scope.metrics)
        .find((metric) => metric.descriptor.name === 'gatehouse.issuer.tokens.issued');
      expect(issued).toBeDefined();
      expect((issued!.dataPoints as DataPoint<number>[]).map((point) => point.value)).toEqual([1]);
    } finally {
      await issuer.close();
      await meterProvider.shutdown();
    }
  });

  it('serves /metrics on its own port, only with the token', async () => {
    process.env.GATEHOUSE_TELEMETRY_PROMETHEUS_TOKEN = 'docs-metrics-token-0123456789abcdefghij';
    const metered = await createIssuer({
      baseUrl: 'http://127.0.0.1:3001',
      database: ':memory:',
      telemetry: {
        prometheus: 'own-port', // 127.0.0.1:9464 unless prometheusHost / prometheusPort say otherwise
        prometheusToken: process.env.GATEHOUSE_TELEMETRY_PROMETHEUS_TOKEN,
        prometheusPort: 0, // a free port in this test
      },
      log: { level: 'silent' },
    });
    try {
      const url = `http://127.0.0.1:${metered.metricsAddress!.port}/metrics`;
      expect((await fetch(url)).status).toBe(401);
      const res = await fetch(url, {
        headers: { authorization: `Bearer ${process.env.GATEHOUSE_TELEMETRY_PROMETHEUS_TOKEN}` },
      });
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('# TYPE db_client_operation_duration histogram');
    } finally {
      await metered.close();
      delete process.env.GATEHOUSE_TELEMETRY_PROMETHEUS_TOKEN;
    }
  });

  it('lists every metric with its instrument and unit', () => {
    const rows = page
      .slice(page.indexOf('## Issuer'))
      .split('\n')
      .filter((line) => /^\| `[a-z_.]+` \| (counter|gauge|histogram|updowncounter) \|/.test(line));
    const metrics = Object.values(ISSUER_TELEMETRY_NAMES.metrics);
    expect(rows).toHaveLength(metrics.length);
    for (const metric of metrics) {
      const row = rows.find((line) => line.startsWith(`| \`${metric.name}\` |`));
      expect(row, metric.name).toBeDefined();
      const cells = row!.split('|').map((cell) => cell.trim());
      expect(cells[2], metric.name).toBe(metric.kind);
      expect(cells[3], metric.name).toBe(`\`${metric.unit}\``);
    }
  });

  it('its Prometheus configuration and alert rules pass promtool, and the rules fire where they must', () => {
    const promtool = (...args: string[]) => {
      const run = spawnSync('promtool', args, { cwd: prometheusDir, encoding: 'utf8' });
      expect(run.error, 'promtool (Debian package prometheus; ./dev test installs it)').toBeUndefined();
      expect(run.status, `${run.stdout}${run.stderr}`).toBe(0);
    };
    promtool('check', 'config', '--syntax-only', 'prometheus.yml');
    promtool('check', 'rules', 'alerts.yml');
    promtool('test', 'rules', 'alerts.test.yml');
  });
});
