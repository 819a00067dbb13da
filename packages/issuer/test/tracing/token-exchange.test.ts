/**
 * Traces of a token exchange (RFC 8693, a subject token minted through the Management API) on a real
 * issuer, SQLite and PostgreSQL: the grant span with its statements (the subject token consumed with
 * its audit event), no token or secret in any span, and the audit event, its log line and the request's
 * span joined by one trace id — in the store and in the Management API's output.
 */
import { SpanKind } from '@opentelemetry/api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TRACING_NAMES } from '../../src/index.js';
import { DRIVERS } from '../helpers/drivers.js';
import {
  ACCESS_TOKEN_TYPE,
  EXCHANGE_SECRET,
  exchange,
  loadExchangeWorld,
  mintSubjectToken,
  userId,
} from '../helpers/exchange.js';
import { loadWorld, ORDERS, PASSWORD } from '../helpers/fixtures.js';
import { adminToken, api, startIssuer, type TestIssuer } from '../helpers/issuer.js';
import { childrenOf, descendants, leaks, startTracing, type Tracing, tree } from '../helpers/tracing.js';

const S = TRACING_NAMES.spans;

describe.each(DRIVERS)('%s', (driver) => {
  let tracing: Tracing;
  let t: TestIssuer;
  let admin: string;
  let alice: string;

  beforeAll(async () => {
    tracing = startTracing();
    t = await startIssuer(driver, { tokenExchange: { maxFailures: 1_000 } });
    await loadWorld(t);
    await loadExchangeWorld(t);
    admin = await adminToken(t);
    alice = await userId(t, 'alice');
  });
  afterAll(async () => {
    await t?.close();
    await tracing.stop();
  });
  beforeEach(() => tracing.reset());

  it('the exchange: grant span, statements under it, nothing secret, one trace id for span, log and audit event', async () => {
    const subjectToken = await mintSubjectToken(t, admin, { userId: alice });
    tracing.reset();
    const before = t.logs.lines.length;
    const res = await exchange(t, {
      subject_token: subjectToken,
      subject_token_type: ACCESS_TOKEN_TYPE,
      resource: ORDERS,
      scope: 'read:orders',
    });
    expect(res.status).toBe(200);
    const all = await tracing.spans();
    const server = all.find((span) => span.kind === SpanKind.SERVER && span.name === 'POST /oidc/token')!;
    expect(server, all.map((span) => span.name).join(', ')).toBeDefined();
    const grant = childrenOf(all, server).find((span) => span.name === S.grant);
    expect(grant?.attributes, tree(all, server)).toEqual({
      'gatehouse.oauth.grant_type': 'urn:ietf:params:oauth:grant-type:token-exchange',
      'gatehouse.oauth.client_id': 'te-web',
    });
    const under = descendants(all, grant!);
    // The subject token is consumed and the event recorded (one statement, or one transaction).
    const statements = under.filter((span) => span.kind === SpanKind.CLIENT);
    expect(
      statements.some((span) => String(span.attributes['db.query.summary']).includes('audit_events')),
      tree(all, server),
    ).toBe(true);
    expect(under.some((span) => span.name === S.issue)).toBe(true);

    const traceId = server.spanContext().traceId;
    const secrets = [subjectToken, String(res.body.access_token), EXCHANGE_SECRET, PASSWORD, admin];
    expect(leaks(all, [...secrets, ...secrets.flatMap((value) => value.split('.'))])).toEqual([]);

    // The audit event: stored with the trace id, shown by the Management API, logged with it.
    const { items } = await t.issuer.store.auditEvents.list(
      { type: 'token_exchange.succeeded' },
      { page: 1, pageSize: 10 },
    );
    expect(items).toHaveLength(1);
    expect(items[0]!.traceId).toBe(traceId);
    const listed = await api(t, admin, 'GET', '/audit-events?type=token_exchange.succeeded');
    expect(listed.body.items.map((event: { traceId: string }) => event.traceId)).toEqual([traceId]);
    const line = t.logs.lines
      .slice(before)
      .map((text) => JSON.parse(text))
      .find((entry) => entry.event === 'audit' && entry.type === 'token_exchange.succeeded');
    expect(line).toMatchObject({ auditId: items[0]!.id, trace_id: traceId });
    // The minting request was another trace: its event has its own id.
    const minted = await t.issuer.store.auditEvents.list(
      { type: 'subject_token.created' },
      { page: 1, pageSize: 10 },
    );
    expect(minted.items[0]!.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(minted.items[0]!.traceId).not.toBe(traceId);
  });

  it('a refused exchange: the 400 is the client error, its failure event carries the trace id', async () => {
    const bogus = 'gh-not-a-subject-token-0123456789abcdef';
    const res = await exchange(t, {
      subject_token: bogus,
      subject_token_type: ACCESS_TOKEN_TYPE,
      resource: ORDERS,
    });
    expect(res.status).toBe(400);
    const all = await tracing.spans();
    const server = all.find((span) => span.name === 'POST /oidc/token')!;
    expect(server.attributes['gatehouse.oauth.error']).toBe('invalid_request');
    expect(server.status.code).toBe(0);
    const grant = childrenOf(all, server).find((span) => span.name === S.grant)!;
    expect(grant.status.code).toBe(0);
    expect(leaks(all, [bogus, EXCHANGE_SECRET])).toEqual([]);
    const { items } = await t.issuer.store.auditEvents.list(
      { type: 'token_exchange.failed' },
      { page: 1, pageSize: 1 },
    );
    expect(items[0]?.traceId).toBe(server.spanContext().traceId);
  });
});
