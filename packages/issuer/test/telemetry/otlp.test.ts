/**
 * OTLP export to a real HTTP collector on loopback (a server recording what is POSTed to
 * `/v1/metrics`): from `telemetry.otlpEndpoint`, and from the standard `OTEL_EXPORTER_OTLP_ENDPOINT`
 * when no setting names one; `service.name` from `OTEL_SERVICE_NAME`; what is left is exported on close.
 * Traces: the trace SDK registered and its spans pushed to `/v1/traces`, unregistered on close; a
 * tracer provider the application registered is left as it is; none with `telemetry.traces: false`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { trace } from '@opentelemetry/api';
import { BatchSpanProcessor, InMemorySpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterEach, describe, expect, it } from 'vitest';
import { tokenRequest } from '../helpers/agent.js';
import { loadWorld, ORDERS, SECRETS } from '../helpers/fixtures.js';
import { startIssuer, type TestIssuer } from '../helpers/issuer.js';
import { eventually } from '../helpers/webhook-receiver.js';

const worker = { clientId: 'worker', clientSecret: SECRETS.worker };

/** A collector: every body POSTed to /v1/metrics (and to /v1/traces), as text (OTLP/HTTP JSON). */
async function startCollector(): Promise<{ url: string; bodies: string[]; spans: string[]; server: Server }> {
  const bodies: string[] = [];
  const spans: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.url === '/v1/metrics') bodies.push(Buffer.concat(chunks).toString('utf8'));
      if (req.url === '/v1/traces') spans.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies, spans, server };
}

let t: TestIssuer | undefined;
let collector: Awaited<ReturnType<typeof startCollector>> | undefined;
const saved = { ...process.env };
afterEach(async () => {
  await t?.close();
  t = undefined;
  collector?.server.closeAllConnections();
  await new Promise((resolve) => collector?.server.close(resolve) ?? resolve(undefined));
  collector = undefined;
  process.env = { ...saved };
});

const issuedIn = (body: string) => body.includes('gatehouse.issuer.tokens.issued');

describe('OTLP export', () => {
  it('pushes the metrics to telemetry.otlpEndpoint every exportInterval', async () => {
    collector = await startCollector();
    t = await startIssuer('sqlite', { telemetry: { otlpEndpoint: collector.url, exportInterval: 1 } });
    await loadWorld(t);
    for (let i = 0; i < 3; i++)
      await tokenRequest(t.baseUrl, { grant_type: 'client_credentials', resource: ORDERS }, worker);
    const bodies = collector.bodies;
    await eventually(
      async () => bodies.some(issuedIn),
      (found) => found,
    );
    const body = bodies.find(issuedIn)!;
    expect(body).toContain('"gatehouse-issuer"');
    expect(body).toContain('@gatehouse/issuer');
    expect(body).not.toContain(SECRETS.worker);
  });

  it('uses OTEL_EXPORTER_OTLP_ENDPOINT and OTEL_SERVICE_NAME when no setting names them, and exports on close', async () => {
    collector = await startCollector();
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = collector.url;
    process.env.OTEL_SERVICE_NAME = 'id-eu-west';
    // An hour between exports: only the export on close can bring the count.
    t = await startIssuer('sqlite', { telemetry: { exportInterval: 3_600 } });
    // The traces go to the same collector, at the path the OTLP specification appends.
    expect(t.issuer.tracesEndpoint).toBe(`${collector.url}/v1/traces`);
    await loadWorld(t);
    await tokenRequest(t.baseUrl, { grant_type: 'client_credentials', resource: ORDERS }, worker);
    expect(collector.bodies.some(issuedIn)).toBe(false);
    await t.close();
    t = undefined;
    const body = collector.bodies.find(issuedIn);
    expect(body).toBeDefined();
    expect(body).toContain('"id-eu-west"');
  });
});

describe('trace SDK start-up', () => {
  it('registers the trace SDK, pushes spans to {otlpEndpoint}/v1/traces, and unregisters it on close', async () => {
    collector = await startCollector();
    t = await startIssuer('sqlite', { telemetry: { otlpEndpoint: `${collector.url}/` } });
    expect(t.logs.text).toContain('"event":"telemetry.traces_started"');
    expect(t.issuer.tracesEndpoint).toBe(`${collector.url}/v1/traces`);
    await loadWorld(t);
    await tokenRequest(t.baseUrl, { grant_type: 'client_credentials', resource: ORDERS }, worker);
    await t.close();
    t = undefined;
    // The token request's spans, exported on close: the request, the grant, its statements.
    const body = collector.spans.find((sent) => sent.includes('POST /oidc/token'));
    expect(body).toBeDefined();
    expect(body).toContain('"gatehouse-issuer"');
    expect(body).toContain('oidc.grant');
    expect(body).not.toContain(SECRETS.worker);
    expect(trace.getTracer('probe').startSpan('after').isRecording()).toBe(false);
  });

  it('leaves a tracer provider the application registered, and registers nothing with traces: false', async () => {
    collector = await startCollector();
    const exporter = new InMemorySpanExporter();
    const own = new TracerProvider({ spanProcessors: [new BatchSpanProcessor({ exporter })] });
    expect(trace.setGlobalTracerProvider(own)).toBe(true);
    try {
      t = await startIssuer('sqlite', { telemetry: { otlpEndpoint: collector.url } });
      expect(t.logs.text).toContain('"event":"telemetry.tracer_provider_exists"');
      expect(t.issuer.tracesEndpoint).toBeUndefined();
      trace.getTracer('probe').startSpan('app-span').end();
      await t.close();
      t = undefined;
      await own.forceFlush();
      expect(exporter.getFinishedSpans().map((span) => span.name)).toEqual(['app-span']);
      expect(collector.spans).toEqual([]);
    } finally {
      trace.disable();
      await own.shutdown();
    }
    t = await startIssuer('sqlite', { telemetry: { otlpEndpoint: collector.url, traces: false } });
    expect(t.logs.text).not.toContain('telemetry.traces_started');
    expect(t.issuer.tracesEndpoint).toBeUndefined();
    expect(trace.getTracer('probe').startSpan('no-sdk').isRecording()).toBe(false);
  });
});
