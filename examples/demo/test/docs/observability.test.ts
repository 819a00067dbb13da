/**
 * docs/observability.md, the resource servers' part: OpenTelemetry's SDK registered the way the page
 * shows (its exporters in memory here), an Express API protected by @gatehouse/express with nothing
 * added for telemetry, answering real requests (supertest); the spans and metrics the page names are
 * the ones recorded, and the options it shows do what it says.
 */
import { createVerifier, TELEMETRY_NAMES } from '@gatehouse/core';
import { requireAuth } from '@gatehouse/express';
import * as api from '@opentelemetry/api';
import { context, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { type DataPoint, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, InMemorySpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';
import express from 'express';
import request from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';
import { bearer, useExampleIssuer } from './example-issuer.ts';

const issuer = await useExampleIssuer();

/** A metric reader the test collects from (a PeriodicExportingMetricReader in production). */
class CollectingReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}
const exporter = new InMemorySpanExporter();
const reader = new CollectingReader();

/** The page's set-up, run before the application is loaded. */
function setUpOpenTelemetry() {
  // … exporter: an OTLPTraceExporter, reader: a PeriodicExportingMetricReader (in memory in this test)
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const tracerProvider = new TracerProvider({ spanProcessors: [new BatchSpanProcessor({ exporter })] });
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
  return tracerProvider;
}

function ordersApi() {
  const app = express();
  app.use(requireAuth({ issuer: 'https://id.example.com/oidc', audience: 'https://api.example.com' }));
  app.get('/orders', (req, res) => {
    res.json({ orders: [], for: req.auth?.subject });
  });
  return app;
}

const tracerProvider = setUpOpenTelemetry();
afterAll(async () => {
  await tracerProvider.shutdown();
  trace.disable();
  metrics.disable();
  context.disable();
});

async function collected(name: string): Promise<DataPoint<number>[]> {
  const { resourceMetrics } = await reader.collect();
  return resourceMetrics.scopeMetrics
    .flatMap((scope) => scope.metrics)
    .filter((metric) => metric.descriptor.name === name)
    .flatMap((metric) => metric.dataPoints as DataPoint<number>[]);
}

describe('docs/observability.md: resource servers', () => {
  it('the set-up alone gives each authentication a span and the metrics, with no token in them', async () => {
    const app = ordersApi();
    const token = await issuer.sign({ sub: 'customer-42', scope: 'read:orders' });
    await request(app).get('/orders').set(bearer(token)).expect(200);
    await request(app).get('/orders').set(bearer(token)).expect(200);
    await request(app).get('/orders').set(bearer('not-a-token')).expect(401);
    await tracerProvider.forceFlush();

    const spans = exporter.getFinishedSpans().filter((s) => s.name === 'gatehouse.authenticate');
    expect(spans.map((s) => s.attributes)).toEqual([
      {
        'gatehouse.outcome': 'ok',
        'gatehouse.token.issuer': 'https://id.example.com/oidc',
        'gatehouse.token.client_id': expect.any(String),
        'gatehouse.token.delegated': false,
        'gatehouse.cache.hit': false,
      },
      expect.objectContaining({ 'gatehouse.outcome': 'ok', 'gatehouse.cache.hit': true }),
      {
        'gatehouse.outcome': 'error',
        'gatehouse.cache.hit': false,
        'gatehouse.error.reason': 'malformed',
        'gatehouse.error.code': 'invalid_token',
        'gatehouse.error.status': 401,
      },
    ]);
    const counted = await collected('gatehouse.authentications');
    expect(counted.reduce((sum, p) => sum + p.value, 0)).toBe(3);
    expect((await collected('gatehouse.jwks.fetches')).map((p) => p.value)).toEqual([2]); // discovery, JWKS
    expect((await collected('gatehouse.jwks.age'))[0]?.attributes).toEqual({
      'gatehouse.issuer': 'https://id.example.com/oidc',
    });
    for (const span of spans)
      for (const value of Object.values(span.attributes))
        for (const part of token.split('.')) expect(String(value)).not.toContain(part);
  });

  it('the options: recordSubject, explicit API or providers, metrics only, and off', async () => {
    const token = await issuer.sign({ sub: 'customer-42' });

    const verifier = createVerifier({
      issuer: 'https://id.example.com/oidc',
      audience: 'https://api.example.com',
      telemetry: { recordSubject: true }, // enduser.id on spans: personal data, so only on request
    });
    await verifier.verify(token);

    // import * as api from '@opentelemetry/api';
    const worker = createVerifier({
      issuer: 'https://id.example.com/oidc',
      audience: 'https://api.example.com',
      telemetry: { api }, // bundled runtimes: hand core the API it cannot load by name
    });
    await worker.verify(token);

    const metricsOnly = createVerifier({
      issuer: 'https://id.example.com/oidc',
      audience: 'https://api.example.com',
      telemetry: { spans: false }, // the metrics, and no span started (an SDK's span costs 1–3 µs)
    });
    await metricsOnly.verify(token);

    const quiet = createVerifier({
      issuer: 'https://id.example.com/oidc',
      audience: 'https://api.example.com',
      telemetry: false, // no span, no metric, no hook
    });
    await quiet.verify(token);

    await tracerProvider.forceFlush();
    const spans = exporter.getFinishedSpans().filter((s) => s.name === TELEMETRY_NAMES.span);
    const [withSubject, fromApi] = spans.slice(-2);
    expect(withSubject!.attributes['enduser.id']).toBe('customer-42');
    expect(fromApi!.attributes['enduser.id']).toBeUndefined();
    expect(fromApi!.attributes['gatehouse.outcome']).toBe('ok');
    expect(spans).toHaveLength(5); // three from the first test, none from `metricsOnly` or `quiet`
  });
});
