/**
 * The Prometheus `/metrics` endpoint on a real issuer: off by default (nothing at `{baseUrl}/metrics`,
 * no port); on a port of its own bound to loopback, where it answers the counts after N token requests;
 * behind a bearer token (401 without it or with a wrong one, on its own port or on the issuer's); the
 * token never reaches a log line.
 */

import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { ConfigError } from '../../src/errors.js';
import { tokenRequest } from '../helpers/agent.js';
import { cliIo } from '../helpers/cli-io.js';
import { loadWorld, ORDERS, SECRETS } from '../helpers/fixtures.js';
import { startIssuer, type TestIssuer } from '../helpers/issuer.js';

const TOKEN = 'metrics-token-0123456789abcdefghijklmnop';
const worker = { clientId: 'worker', clientSecret: SECRETS.worker };

let t: TestIssuer | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const scrape = (url: string, token?: string) =>
  fetch(url, token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } });

/** The value of the sample line `name{…labels}` in a Prometheus text page. */
function sample(page: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of page.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    if (Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`)))
      return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('Prometheus /metrics', () => {
  it('is off by default: no port of its own, and nothing at {baseUrl}/metrics', async () => {
    t = await startIssuer('sqlite');
    expect(t.issuer.config.telemetry.prometheus).toBe('off');
    expect(t.issuer.metricsAddress).toBeUndefined();
    expect((await fetch(`${t.baseUrl}/metrics`)).status).toBe(404);
  });

  it('own-port: on loopback, answers the counts after N token requests; any other path is 404', async () => {
    t = await startIssuer('sqlite', { telemetry: { prometheus: 'own-port', prometheusPort: 0 } });
    await loadWorld(t);
    const address = t.issuer.metricsAddress!;
    expect(address.address).toBe('127.0.0.1');
    for (let i = 0; i < 4; i++)
      expect(
        (await tokenRequest(t.baseUrl, { grant_type: 'client_credentials', resource: ORDERS }, worker))
          .status,
      ).toBe(200);
    const res = await scrape(`http://127.0.0.1:${address.port}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const page = await res.text();
    expect(
      sample(page, 'gatehouse_issuer_tokens_issued_total', {
        gatehouse_grant_type: 'client_credentials',
        gatehouse_client_id: 'worker',
      }),
    ).toBe(4);
    // OpenTelemetry's Prometheus exporter: dots become underscores, counters end in _total, no unit suffix.
    expect(page).toContain('db_client_operation_duration_bucket{');
    expect(page).toContain('# TYPE gatehouse_issuer_webhook_queue_depth gauge');
    expect((await scrape(`http://127.0.0.1:${address.port}/other`)).status).toBe(404);
    expect(t.logs.text).toContain('"event":"telemetry.started"');
  });

  it('own-port with a token: 401 without it or with a wrong one, 200 with it; never logged', async () => {
    t = await startIssuer('sqlite', {
      telemetry: { prometheus: 'own-port', prometheusPort: 0, prometheusToken: TOKEN },
    });
    const url = `http://127.0.0.1:${t.issuer.metricsAddress!.port}/metrics`;
    const missing = await scrape(url);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
    expect((await scrape(url, `${TOKEN.slice(0, -1)}x`)).status).toBe(401);
    expect((await scrape(url, TOKEN.slice(0, 8))).status).toBe(401);
    expect((await fetch(url, { headers: { authorization: `Basic ${TOKEN}` } })).status).toBe(401);
    expect((await scrape(url, TOKEN)).status).toBe(200);
    expect(t.logs.text).toContain('"metricsToken":true');
    expect(t.logs.text).not.toContain(TOKEN);
  });

  it("issuer-port: {baseUrl}/metrics on the issuer's port, only with the token", async () => {
    t = await startIssuer('sqlite', { telemetry: { prometheus: 'issuer-port', prometheusToken: TOKEN } });
    expect(t.issuer.metricsAddress).toBeUndefined();
    expect((await scrape(`${t.baseUrl}/metrics`)).status).toBe(401);
    expect((await scrape(`${t.baseUrl}/metrics`, 'wrong-token-0123456789abcdefghijklmnop')).status).toBe(401);
    const ok = await scrape(`${t.baseUrl}/metrics`, TOKEN);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('# HELP');
    expect((await fetch(`${t.baseUrl}/metrics`, { method: 'POST' })).status).toBe(405);
    expect(t.logs.text).not.toContain(TOKEN);
  });

  it('issuer-port without a token is refused before anything starts', async () => {
    await expect(startIssuer('sqlite', { telemetry: { prometheus: 'issuer-port' } })).rejects.toThrow(
      new ConfigError(
        'telemetry.prometheusToken',
        'is required when telemetry.prometheus is "issuer-port" (the issuer\'s port is public)',
      ),
    );
  });

  it('a taken port is a ListenError naming the setting', async () => {
    const first = await startIssuer('sqlite', { telemetry: { prometheus: 'own-port', prometheusPort: 0 } });
    t = first;
    const port = first.issuer.metricsAddress!.port;
    await expect(
      startIssuer('sqlite', { telemetry: { prometheus: 'own-port', prometheusPort: port } }),
    ).rejects.toThrow(
      `port ${port} on 127.0.0.1 is already in use: stop what uses it, or pick another port with the "telemetry.prometheusPort" setting`,
    );
  });

  it('gatehouse-issuer start prints where /metrics is, and that it needs the token (never the token)', async () => {
    const cli = cliIo({
      GATEHOUSE_TELEMETRY_PROMETHEUS: 'own-port',
      GATEHOUSE_TELEMETRY_PROMETHEUS_PORT: '0',
      GATEHOUSE_TELEMETRY_PROMETHEUS_TOKEN: TOKEN,
      GATEHOUSE_LOG_LEVEL: 'silent',
    });
    const { code, issuer } = await runCli(
      ['start', '--database', ':memory:', '--port', '0'],
      cli.io as never,
    );
    expect(code).toBe(0);
    try {
      const port = issuer!.metricsAddress!.port;
      expect(cli.stderr()).toContain(
        `  Metrics:         http://127.0.0.1:${port}/metrics  (bearer token required)\n`,
      );
      expect(cli.stderr()).not.toContain(TOKEN);
    } finally {
      await issuer!.close();
    }
  });
});
