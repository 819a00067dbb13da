/**
 * Traces of the token endpoint (client credentials) on a real issuer on loopback, SQLite and
 * PostgreSQL: the SERVER span `POST /oidc/token` with the HTTP conventions' attributes, the provider's
 * phases as its children (client authentication, the grant, the token issued) and the database
 * statements under them; an incoming `traceparent` continued; the request's log line carrying the
 * span's ids; and no secret or token anywhere in a span.
 */
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TRACING_NAMES } from '../../src/index.js';
import { DRIVERS } from '../helpers/drivers.js';
import { loadWorld, ORDERS, SECRETS } from '../helpers/fixtures.js';
import { clientCredentials, startIssuer, type TestIssuer } from '../helpers/issuer.js';
import { childrenOf, descendants, leaks, startTracing, type Tracing, tree } from '../helpers/tracing.js';

const S = TRACING_NAMES.spans;
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';

describe.each(DRIVERS)('%s', (driver) => {
  let tracing: Tracing;
  let t: TestIssuer;

  beforeAll(async () => {
    tracing = startTracing();
    t = await startIssuer(driver);
    await loadWorld(t);
  });
  afterAll(async () => {
    await t?.close();
    await tracing.stop();
  });
  beforeEach(() => tracing.reset());

  /** The one SERVER span named `name`, and every span. */
  async function request(name: string): Promise<{ server: ReadableSpan; all: ReadableSpan[] }> {
    const all = await tracing.spans();
    const servers = all.filter((span) => span.kind === SpanKind.SERVER && span.name === name);
    expect(servers.map((span) => span.name)).toEqual([name]);
    return { server: servers[0]!, all };
  }

  it('a client-credentials request: the request span, the provider phases and the statements under them', async () => {
    const res = await clientCredentials(t.baseUrl, 'worker', SECRETS.worker, { resource: ORDERS });
    expect(res.status).toBe(200);
    const { server, all } = await request('POST /oidc/token');
    expect(server.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/oidc/token',
      'url.path': '/oidc/token',
      'url.scheme': 'http',
      'http.response.status_code': 200,
    });
    expect(server.status.code).toBe(SpanStatusCode.UNSET);
    expect(server.parentSpanContext).toBeUndefined();

    const phases = childrenOf(all, server);
    const names = phases.map((span) => span.name);
    expect(names, tree(all, server)).toEqual(expect.arrayContaining([S.clientAuthentication, S.grant]));
    const authentication = phases.find((span) => span.name === S.clientAuthentication)!;
    const grant = phases.find((span) => span.name === S.grant)!;
    // Authentication ends before the grant begins; the grant is the authenticated client's.
    expect(authentication.endTime <= grant.startTime || authentication.endTime[0] <= grant.startTime[0]).toBe(
      true,
    );
    expect(grant.attributes).toEqual({
      'gatehouse.oauth.grant_type': 'client_credentials',
      'gatehouse.oauth.client_id': 'worker',
    });
    const issued = childrenOf(all, grant).filter((span) => span.name === S.issue);
    expect(issued.map((span) => span.attributes['gatehouse.oidc.model'])).toEqual(['ClientCredentials']);

    // The token request's records are read while the client is authenticated: statements under it.
    const statements = descendants(all, authentication).filter((span) => span.kind === SpanKind.CLIENT);
    expect(statements.length, tree(all, server)).toBeGreaterThan(0);
    for (const statement of statements) {
      expect(statement.attributes['db.system.name']).toBe(driver === 'sqlite' ? 'sqlite' : 'postgresql');
      expect(statement.name).toBe(statement.attributes['db.query.summary']);
      expect(statement.name).toMatch(/^(SELECT|INSERT|UPDATE|DELETE|db\.transaction)\b/);
    }
    expect(statements.some((span) => span.attributes['db.operation.name'] === 'SELECT')).toBe(true);

    // Nothing secret in any span: the client secret, the token, its parts.
    const token = String(res.body.access_token);
    expect(leaks(all, [SECRETS.worker, token, ...token.split('.')])).toEqual([]);
  });

  it('the request log line carries the request span ids', async () => {
    const before = t.logs.lines.length;
    expect((await clientCredentials(t.baseUrl, 'worker', SECRETS.worker, { resource: ORDERS })).status).toBe(
      200,
    );
    const { server } = await request('POST /oidc/token');
    await expect
      .poll(() =>
        t.logs.lines
          .slice(before)
          .map((line) => JSON.parse(line))
          .find((l) => l.event === 'http'),
      )
      .toBeDefined();
    const line = t.logs.lines
      .slice(before)
      .map((l) => JSON.parse(l))
      .find((l) => l.event === 'http' && l.path === '/oidc/token');
    expect(line).toMatchObject({
      trace_id: server.spanContext().traceId,
      span_id: server.spanContext().spanId,
    });
    // The provider's own line (token issued) was written in the request: the same trace.
    const issued = t.logs.lines
      .slice(before)
      .map((l) => JSON.parse(l))
      .find((l) => l.event === 'grant.success');
    expect(issued?.trace_id).toBe(server.spanContext().traceId);
  });

  it('continues an incoming traceparent', async () => {
    const form = new URLSearchParams({ grant_type: 'client_credentials', resource: ORDERS });
    const res = await fetch(`${t.baseUrl}/oidc/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`worker:${SECRETS.worker}`).toString('base64')}`,
        traceparent: `00-${TRACE_ID}-${PARENT_ID}-01`,
      },
      body: form,
    });
    expect(res.status).toBe(200);
    const { server, all } = await request('POST /oidc/token');
    expect(server.spanContext().traceId).toBe(TRACE_ID);
    expect(server.parentSpanContext?.spanId).toBe(PARENT_ID);
    for (const span of descendants(all, server)) expect(span.spanContext().traceId).toBe(TRACE_ID);
  });

  it('a refused client: a 401 with the OAuth error code, not a server fault, and no secret', async () => {
    const wrong = 'not-the-worker-secret-0123456789';
    const res = await clientCredentials(t.baseUrl, 'worker', wrong, { resource: ORDERS });
    expect(res.status).toBe(401);
    const { server, all } = await request('POST /oidc/token');
    expect(server.attributes).toMatchObject({
      'http.response.status_code': 401,
      'gatehouse.oauth.error': 'invalid_client',
    });
    expect(server.status.code).toBe(SpanStatusCode.UNSET);
    expect(childrenOf(all, server).map((span) => span.name)).not.toContain(S.grant);
    expect(leaks(all, [wrong, SECRETS.worker])).toEqual([]);
  });

  it('the query string is never recorded, and an unknown path has no route', async () => {
    const res = await fetch(`${t.baseUrl}/oidc/auth?client_id=web-app&state=s3cr3t-state-value`);
    expect(res.status).toBeGreaterThanOrEqual(300);
    const { server, all } = await request('GET /oidc/auth');
    expect(server.attributes['url.path']).toBe('/oidc/auth');
    expect(leaks(all, ['s3cr3t-state-value'])).toEqual([]);
    tracing.reset();
    expect((await fetch(`${t.baseUrl}/nowhere`)).status).toBe(404);
    const { server: unknown } = await request('GET');
    expect(unknown.attributes['http.route']).toBeUndefined();
    expect(unknown.attributes['url.path']).toBe('/nowhere');
  });
});
