/**
 * OpenTelemetry through the Express adapter: a real Express server on loopback, instrumented by
 * OpenTelemetry's own HTTP instrumentation (a SERVER span per request) with the AsyncLocalStorage
 * context manager — the setup of docs/observability.md. The verifier's `gatehouse.authenticate` span
 * must be a child of the request span, with the outcome of the request's token; the adapter passes
 * nothing of its own for this (the verifier options it is given include `telemetry`).
 */
import { once } from 'node:events';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { createTestIssuer, type TestIssuer } from '@gatehouse/testing';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireAuth } from '../src/index.js';

const AUDIENCE = 'https://api.gatehouse.test';
const exporter = new InMemorySpanExporter();
const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
const contextManager = new AsyncLocalStorageContextManager().enable();
const http = new HttpInstrumentation();
let issuer: TestIssuer;
let server: Server;
let url: string;

beforeAll(async () => {
  context.setGlobalContextManager(contextManager);
  trace.setGlobalTracerProvider(tracerProvider);
  http.setTracerProvider(tracerProvider);
  http.enable();
  createRequire(import.meta.url)('node:http'); // the instrumentation patches node:http when it is required
  issuer = await createTestIssuer({ audience: AUDIENCE });
  const app = express();
  app.get(
    '/orders',
    requireAuth({ ...issuer.verifierOptions(), fetch: issuer.fetch, warmUp: false }),
    (req, res) => {
      res.json({ subject: req.auth?.subject });
    },
  );
  server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/orders`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  http.disable();
  trace.disable();
  context.disable();
  contextManager.disable();
  await tracerProvider.shutdown();
});

/** Finished spans once the exporter has them. */
async function spans() {
  await tracerProvider.forceFlush();
  return exporter.getFinishedSpans();
}

describe('@gatehouse/express with OpenTelemetry', () => {
  it('each request span has the gatehouse.authenticate span as its child', async () => {
    const token = await issuer.sign({ sub: 'alice' });
    for (let i = 0; i < 2; i++) {
      const ok = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
      expect(ok.status).toBe(200);
    }
    const refused = await fetch(url, { headers: { authorization: 'Bearer not-a-jwt' } });
    expect(refused.status).toBe(401);

    const all = await spans();
    const requests = all.filter((s) => s.kind === SpanKind.SERVER);
    const ours = all.filter((s) => s.name === 'gatehouse.authenticate');
    expect(requests).toHaveLength(3);
    expect(ours).toHaveLength(3);
    for (const span of ours) {
      const parent = requests.find((r) => r.spanContext().spanId === span.parentSpanContext?.spanId);
      expect(parent, 'the request span is the parent').toBeDefined();
      expect(span.spanContext().traceId).toBe(parent!.spanContext().traceId);
      expect(span.kind).toBe(SpanKind.INTERNAL);
    }
    expect(ours.map((s) => [s.attributes['gatehouse.outcome'], s.attributes['gatehouse.cache.hit']])).toEqual(
      [
        ['ok', false],
        ['ok', true],
        ['error', false], // looked up in the result cache first, then refused
      ],
    );
    expect(ours[2]!.attributes['gatehouse.error.reason']).toBe('malformed');
    expect(ours[2]!.status.code).toBe(SpanStatusCode.UNSET);
    // The request span of the refused call tells the 401; no token anywhere.
    const values = all.flatMap((s) => Object.values(s.attributes).map(String));
    for (const part of token.split('.')) for (const value of values) expect(value).not.toContain(part);
  });
});
