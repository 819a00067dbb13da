/**
 * With no SDK registered (the API's no-op provider), the issuer traces nothing and adds nothing: no
 * `trace_id` on any log line, no trace id on audit events, even for a request that carries a
 * `traceparent`; and the tracer helpers run their work as it is.
 */
import { trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeTraceId, traceFields } from '../../src/tracing/log-fields.js';
import { activeTracer, inChildSpan } from '../../src/tracing/tracer.js';
import { DRIVERS } from '../helpers/drivers.js';
import { exchange, loadExchangeWorld, mintSubjectToken, userId } from '../helpers/exchange.js';
import { loadWorld, ORDERS } from '../helpers/fixtures.js';
import { adminToken, startIssuer, type TestIssuer } from '../helpers/issuer.js';

describe('without an SDK', () => {
  it('the helpers do nothing but the work', async () => {
    trace.disable();
    expect(activeTracer()).toBeUndefined();
    expect(await inChildSpan('x', {}, async (span) => span)).toBeUndefined();
    expect(traceFields()).toEqual({});
    expect(activeTraceId()).toBeNull();
  });
});

describe.each(DRIVERS)('%s without an SDK', (driver) => {
  let t: TestIssuer;
  beforeAll(async () => {
    trace.disable();
    t = await startIssuer(driver);
    await loadWorld(t);
    await loadExchangeWorld(t);
  });
  afterAll(() => t?.close());

  it('no trace id in logs or audit events', async () => {
    const admin = await adminToken(t);
    const subjectToken = await mintSubjectToken(t, admin, { userId: await userId(t, 'alice') });
    const res = await exchange(t, {
      subject_token: subjectToken,
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      resource: ORDERS,
    });
    expect(res.status).toBe(200);
    const traced = await fetch(`${t.baseUrl}/health`, {
      headers: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
    });
    expect(traced.status).toBe(200);
    await expect.poll(() => t.logs.lines.some((line) => line.includes('"path":"/health"'))).toBe(true);
    expect(t.logs.lines.filter((line) => line.includes('trace_id'))).toEqual([]);
    const { items } = await t.issuer.store.auditEvents.list({}, { page: 1, pageSize: 50 });
    expect(items.length).toBeGreaterThan(1);
    expect(items.map((event) => event.traceId)).toEqual(items.map(() => null));
  });
});
