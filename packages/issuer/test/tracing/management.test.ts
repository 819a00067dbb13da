/**
 * Traces of Management API calls on a real issuer, SQLite and PostgreSQL: `POST /api/users` and
 * `GET /api/users/{id}` named after their route, core's `gatehouse.authenticate` and the statements
 * (in the change's transaction) as children, no user id, password or token in any span, and the
 * change's audit event carrying the request's trace id, and so does the webhook delivery of that event.
 */
import { SpanKind } from '@opentelemetry/api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TRACING_NAMES } from '../../src/index.js';
import { DRIVERS } from '../helpers/drivers.js';
import { adminToken, api, startIssuer, type TestIssuer } from '../helpers/issuer.js';
import { childrenOf, descendants, leaks, startTracing, type Tracing, tree } from '../helpers/tracing.js';
import { startWebhookReceiver } from '../helpers/webhook-receiver.js';

const PASSWORD = 'a long enough password for carol';

describe.each(DRIVERS)('%s', (driver) => {
  let tracing: Tracing;
  let t: TestIssuer;
  let admin: string;

  beforeAll(async () => {
    tracing = startTracing();
    t = await startIssuer(driver);
    admin = await adminToken(t);
  });
  afterAll(async () => {
    await t?.close();
    await tracing.stop();
  });
  beforeEach(() => tracing.reset());

  it('a user created and read: route names, children, the audit event joined by its trace id', async () => {
    const created = await api(t, admin, 'POST', '/users', {
      username: 'carol',
      email: 'carol@example.com',
      password: PASSWORD,
    });
    expect(created.status).toBe(201);
    const userId = String(created.body.id);
    const read = await api(t, admin, 'GET', `/users/${userId}`);
    expect(read.status).toBe(200);

    const all = await tracing.spans();
    const servers = all.filter((span) => span.kind === SpanKind.SERVER);
    expect(servers.map((span) => span.name)).toEqual(['POST /api/users', 'GET /api/users/{id}']);
    const [post, get] = servers as [(typeof servers)[0], (typeof servers)[0]];
    expect(post.attributes).toMatchObject({
      'http.route': '/api/users',
      'url.path': '/api/users',
      'http.response.status_code': 201,
    });
    expect(get.attributes).toMatchObject({
      'http.route': '/api/users/{id}',
      'url.path': '/api/users/{id}',
      'http.response.status_code': 200,
    });
    for (const server of servers) {
      const children = childrenOf(all, server);
      const authenticate = children.find((span) => span.name === 'gatehouse.authenticate');
      expect(authenticate?.attributes['gatehouse.outcome'], tree(all, server)).toBe('ok');
      expect(descendants(all, server).some((span) => span.kind === SpanKind.CLIENT)).toBe(true);
    }
    const transaction = descendants(all, post).find((span) => span.name === TRACING_NAMES.spans.transaction);
    expect(transaction, tree(all, post)).toBeDefined();
    expect(
      childrenOf(all, transaction!).some((span) => span.attributes['db.collection.name'] === 'users'),
      tree(all, post),
    ).toBe(true);

    expect(leaks(all, [userId, PASSWORD, admin, ...admin.split('.'), 'carol@example.com'])).toEqual([]);

    const { items } = await t.issuer.store.auditEvents.list(
      { type: 'user.created' },
      { page: 1, pageSize: 5 },
    );
    expect(items.map((event) => event.traceId)).toEqual([post.spanContext().traceId]);
  });

  it("the webhook delivery of a change's event carries the trace id of the request that recorded it", async () => {
    const receiver = await startWebhookReceiver();
    try {
      const registered = await api(t, admin, 'POST', '/webhooks', {
        url: receiver.url,
        events: ['user.created'],
      });
      expect(registered.status).toBe(201);
      tracing.reset();
      const created = await api(t, admin, 'POST', '/users', {
        username: 'dave',
        email: 'dave@example.com',
        password: PASSWORD,
      });
      expect(created.status).toBe(201);
      await receiver.until((received) => received.length > 0);

      const post = (await tracing.spans()).find((span) => span.kind === SpanKind.SERVER)!;
      expect(post.name).toBe('POST /api/users');
      const traceId = post.spanContext().traceId;
      const delivered = JSON.parse(receiver.received[0]!.body);
      expect(delivered).toMatchObject({ type: 'user.created', userId: created.body.id, traceId });
      const { items } = await t.issuer.store.auditEvents.list(
        { type: 'user.created', userId: String(created.body.id) },
        { page: 1, pageSize: 5 },
      );
      expect(items.map((event) => [event.id, event.traceId])).toEqual([[delivered.id, traceId]]);
    } finally {
      await receiver.close();
    }
  });

  it('a refused call: 401 without a token, the route still named, no fault', async () => {
    const res = await api(t, undefined, 'GET', '/users');
    expect(res.status).toBe(401);
    const all = await tracing.spans();
    const server = all.find((span) => span.kind === SpanKind.SERVER)!;
    expect(server.name).toBe('GET /api/users');
    expect(server.attributes['http.response.status_code']).toBe(401);
    expect(server.status.code).toBe(0);
  });
});
