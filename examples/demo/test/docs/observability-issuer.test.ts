/**
 * docs/observability.md, "Issuer: traces": OpenTelemetry's SDK registered the way the page shows (its
 * exporter in memory here), a real issuer on loopback answering
 * a client-credentials request that carries a `traceparent` and a Management API change: the spans,
 * their names and parents, and one trace id in the span, the request's log line and the audit event.
 */
import { Writable } from 'node:stream';
import { createIssuer, TRACING_NAMES } from '@gatehouse/issuer';
import * as api from '@opentelemetry/api';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BatchSpanProcessor, InMemorySpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../../test/support/ports.js';

const exporter = new InMemorySpanExporter();

/** The page's set-up, run before the issuer is created. */
function setUpOpenTelemetry() {
  // … exporter: an OTLPTraceExporter (in memory in this test)
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const tracerProvider = new TracerProvider({ spanProcessors: [new BatchSpanProcessor({ exporter })] });
  trace.setGlobalTracerProvider(tracerProvider);
  return tracerProvider;
}

class Lines extends Writable {
  readonly lines: Record<string, unknown>[] = [];
  override _write(chunk: Buffer, _encoding: string, callback: () => void): void {
    for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) this.lines.push(JSON.parse(line));
    callback();
  }
}

const tracerProvider = setUpOpenTelemetry();
afterAll(async () => {
  await tracerProvider.shutdown();
  trace.disable();
  propagation.disable();
  context.disable();
});

describe('docs/observability.md: issuer traces', () => {
  it('spans for a token request and a Management API change, joined to the log line and the audit event', async () => {
    const logs = new Lines();
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const issuer = await createIssuer({
      baseUrl: base,
      database: ':memory:',
      passwords: { scryptCost: 1024 },
      log: { destination: logs },
    });
    try {
      await issuer.listen(port, '127.0.0.1');
      const basic = `Basic ${Buffer.from(`${issuer.admin.adminClientId}:${issuer.admin.adminClientSecret}`).toString('base64')}`;
      const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
      const token = await fetch(`${base}/oidc/token`, {
        method: 'POST',
        headers: { authorization: basic, traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
        body: new URLSearchParams({ grant_type: 'client_credentials', resource: `${base}/api` }),
      });
      expect(token.status).toBe(200);
      const { access_token: accessToken } = (await token.json()) as { access_token: string };
      const created = await fetch(`${base}/api/users`, {
        method: 'POST',
        headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          username: 'carol',
          email: 'carol@example.com',
          password: 'a password for carol',
        }),
      });
      expect(created.status).toBe(201);
      await tracerProvider.forceFlush();

      const spans = exporter.getFinishedSpans();
      const tokenSpan = spans.find((s) => s.name === 'POST /oidc/token')!;
      expect(tokenSpan.kind).toBe(api.SpanKind.SERVER);
      expect(tokenSpan.spanContext().traceId).toBe(traceId); // the incoming traceparent, continued
      const children = spans.filter((s) => s.parentSpanContext?.spanId === tokenSpan.spanContext().spanId);
      expect(children.map((s) => s.name)).toEqual(
        expect.arrayContaining([TRACING_NAMES.spans.clientAuthentication, TRACING_NAMES.spans.grant]),
      );
      const statement = spans.find(
        (s) => s.kind === api.SpanKind.CLIENT && s.attributes['db.system.name'] === 'sqlite',
      );
      expect(statement?.name).toBe(statement?.attributes['db.query.summary']);

      const change = spans.find((s) => s.name === 'POST /api/users')!;
      const changeTrace = change.spanContext().traceId;
      const line = logs.lines.find((l) => l.event === 'http' && l.path === '/api/users');
      expect(line).toMatchObject({
        trace_id: changeTrace,
        span_id: change.spanContext().spanId,
        status: 201,
      });
      const events = await fetch(`${base}/api/audit-events?type=user.created`, {
        headers: { authorization: `Bearer ${accessToken}` },
      });
      const { items } = (await events.json()) as { items: { traceId: string | null }[] };
      expect(items.map((event) => event.traceId)).toEqual([changeTrace]);
    } finally {
      await issuer.close();
    }
  });
});
