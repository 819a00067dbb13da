/**
 * The issuer's metrics on a real issuer (two instances behind a balancer on PostgreSQL, both recording
 * to one provider), read with an in-memory reader after a known number of token requests, token errors,
 * exchanges, failed sign-ins and a lock, 429s and webhook deliveries; the statement durations and (on
 * PostgreSQL) the pool; no attribute holds a token, a secret or a user id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ISSUER_TELEMETRY_NAMES as N } from '../../src/telemetry/names.js';
import { tokenRequest } from '../helpers/agent.js';
import { DRIVERS } from '../helpers/drivers.js';
import {
  ACCESS_TOKEN_TYPE,
  exchange,
  loadExchangeWorld,
  mintSubjectToken,
  userId,
} from '../helpers/exchange.js';
import { loadWorld, ORDERS, SECRETS } from '../helpers/fixtures.js';
import { adminToken, api, managementToken, startIssuer, type TestIssuer } from '../helpers/issuer.js';
import { openSignInForm } from '../helpers/sign-in.js';
import { eventually, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { memoryMetrics, points, total } from './reader.js';

const M = N.metrics;
const A = N.attributes;

describe.each(DRIVERS)('%s', (driver) => {
  let t: TestIssuer;
  let admin: string;
  let receiver: WebhookReceiver | undefined;
  const { provider, reader } = memoryMetrics();
  const worker = { clientId: 'worker', clientSecret: SECRETS.worker };
  const seen: string[] = [];

  beforeAll(async () => {
    t = await startIssuer(driver, {
      telemetry: { meterProvider: provider },
      rateLimits: { tokenPerClient: 10, managementPerClient: 40 },
      signIn: { maxFailuresPerAccountAndAddress: 3, delayAfter: 100, delayAfterPerAddress: 100 },
    });
    await loadWorld(t);
    await loadExchangeWorld(t);
    admin = await adminToken(t);
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
    await provider.shutdown();
  });

  it('counts each token response by grant type and client id, and each error by its code', async () => {
    for (let i = 0; i < 5; i++) {
      const res = await tokenRequest(
        t.baseUrl,
        { grant_type: 'client_credentials', resource: ORDERS },
        worker,
      );
      expect(res.status).toBe(200);
      seen.push(res.body.access_token);
    }
    const refused = await tokenRequest(
      t.baseUrl,
      { grant_type: 'client_credentials', resource: ORDERS, scope: 'admin:orders' },
      worker,
    );
    expect(refused.body.error).toBe('invalid_scope');
    const issued = { [A.grantType]: 'client_credentials', [A.clientId]: 'worker' };
    expect(await total(reader, M.tokensIssued.name, issued)).toBe(5);
    expect(await total(reader, M.tokenErrors.name, { ...issued, [A.errorCode]: 'invalid_scope' })).toBe(1);
    // A grant type nobody registered is never an attribute value of its own.
    await tokenRequest(t.baseUrl, { grant_type: 'urn:example:made-up' }, worker);
    expect(await total(reader, M.tokenErrors.name, { [A.grantType]: '_OTHER' })).toBe(1);
  });

  it('counts token exchanges by outcome and reason', async () => {
    const alice = await userId(t, 'alice');
    const subjectToken = await mintSubjectToken(t, admin, { userId: alice });
    seen.push(subjectToken);
    const ok = await exchange(t, {
      subject_token: subjectToken,
      subject_token_type: ACCESS_TOKEN_TYPE,
      resource: ORDERS,
    });
    expect(ok.status).toBe(200);
    seen.push(ok.body.access_token);
    for (let i = 0; i < 2; i++) {
      const refused = await exchange(t, {
        subject_token: `sub_${'A'.repeat(43)}`,
        subject_token_type: ACCESS_TOKEN_TYPE,
        resource: ORDERS,
      });
      expect(refused.status).toBe(400);
    }
    await eventually(
      () => total(reader, M.tokenExchanges.name),
      (n) => n === 3,
    );
    expect(await total(reader, M.tokenExchanges.name, { [A.outcome]: 'ok' })).toBe(1);
    const failures = (await points(reader, M.tokenExchanges.name)).filter(
      (point) => point.attributes[A.outcome] === 'error',
    );
    expect(failures).toHaveLength(1);
    expect(failures[0]!.value).toBe(2);
    expect(typeof failures[0]!.attributes[A.errorReason]).toBe('string');
  });

  it('counts failed sign-ins and the lock they lead to', async () => {
    const form = await openSignInForm(t.baseUrl);
    for (let i = 0; i < 4; i++) await form.attempt('alice', `wrong password ${i}`);
    await eventually(
      () => total(reader, M.signInLocks.name),
      (n) => n === 1,
    );
    expect(await total(reader, M.signInFailures.name)).toBeGreaterThanOrEqual(3);
  });

  it('counts every 429 by the limit that answered it', async () => {
    const third = { clientId: 'third-party', clientSecret: SECRETS.third };
    let tooMany = 0;
    for (let i = 0; i < 25; i++) {
      const res = await tokenRequest(
        t.baseUrl,
        { grant_type: 'client_credentials', resource: ORDERS },
        third,
      );
      if (res.status === 429) tooMany++;
    }
    // Ten per client per instance: at least five of 25 are refused, one instance or two.
    expect(tooMany).toBeGreaterThanOrEqual(5);
    expect(await total(reader, M.rateLimited.name, { [A.limit]: 'token_per_client' })).toBe(tooMany);
    expect(await total(reader, M.tokenErrors.name, { [A.errorCode]: 'too_many_requests' })).toBe(tooMany);

    // The Management API's limit, per client: a client of its own, so the administrator keeps its quota.
    const usersReader = await managementToken(t, ['users:read']);
    let refused = 0;
    for (let i = 0; i < 100; i++)
      if ((await api(t, usersReader, 'GET', '/users?pageSize=1')).status === 429) refused++;
    // Forty per client per instance: at least twenty of 100 are refused, one instance or two.
    expect(refused).toBeGreaterThanOrEqual(20);
    expect(await total(reader, M.rateLimited.name, { [A.limit]: 'management_per_client' })).toBe(refused);
  });

  it('counts webhook attempts by outcome, the delivery lag, and reads the queue', async () => {
    receiver = await startWebhookReceiver((n) => (n === 1 ? 500 : 204));
    const hook = await api(t, admin, 'POST', '/webhooks', {
      url: receiver.url,
      events: ['personal_access_token.created'],
    });
    expect(hook.status).toBe(201);
    seen.push(hook.body.secret);
    const alice = await userId(t, 'alice');
    const pat = await api(t, admin, 'POST', `/users/${alice}/personal-access-tokens`, { name: 'metrics' });
    expect(pat.status).toBe(201);
    seen.push(pat.body.token ?? '');
    await eventually(
      () => total(reader, M.webhookDeliveries.name, { [A.outcome]: 'delivered' }),
      (n) => n === 1,
    );
    expect(await total(reader, M.webhookDeliveries.name, { [A.outcome]: 'retry' })).toBe(1);
    const lag = await points(reader, M.webhookDeliveryLag.name);
    expect(lag).toHaveLength(1);
    // The first attempt failed, the retry waited a second: the event was at least that late.
    expect((lag[0]!.value as { count: number; min: number }).min).toBeGreaterThanOrEqual(0.9);
    const depth = await points(reader, M.webhookQueueDepth.name);
    expect(depth.map((point) => point.value)).toEqual([0]);
    expect((await points(reader, M.webhookQueueLag.name)).map((point) => point.value)).toEqual([0]);
  });

  it('times the statements, and on PostgreSQL reports the pool', async () => {
    const selects = await points(reader, M.dbOperationDuration.name);
    const system = driver === 'postgres' ? 'postgresql' : 'sqlite';
    const select = selects.find(
      (point) => point.attributes[A.dbOperation] === 'SELECT' && point.attributes[A.dbSystem] === system,
    );
    expect((select?.value as { count: number } | undefined)?.count).toBeGreaterThan(10);
    const max = await points(reader, M.dbConnectionMax.name);
    if (driver === 'postgres') {
      // Two instances, ten connections each.
      expect(max.map((point) => point.value)).toEqual([20]);
      const used = await total(reader, M.dbConnectionCount.name);
      expect(used).toBeGreaterThan(0);
    } else expect(max).toEqual([]);
  });

  it('measures every request: each token response is a 200 at /oidc/token, each 429 one of its 429s', async () => {
    const token = { [A.httpMethod]: 'POST', [A.httpRoute]: '/oidc/token' };
    expect(await total(reader, M.httpServerDuration.name, { ...token, [A.httpStatus]: 200 })).toBe(
      await total(reader, M.tokensIssued.name),
    );
    expect(await total(reader, M.httpServerDuration.name, { ...token, [A.httpStatus]: 429 })).toBe(
      await total(reader, M.rateLimited.name, { [A.limit]: 'token_per_client' }),
    );
    // Management API paths carry ids: no route, never the path itself.
    const routes = new Set(
      (await points(reader, M.httpServerDuration.name)).map((p) => p.attributes[A.httpRoute]),
    );
    expect(routes.has(undefined)).toBe(true);
    for (const route of routes) if (route !== undefined) expect(String(route)).not.toMatch(/usr_|app_|whk_/);
  });

  it('records no token, secret, subject or user id in any attribute', async () => {
    const { resourceMetrics } = await reader.collect();
    const values = resourceMetrics.scopeMetrics
      .flatMap((scope) => scope.metrics)
      .flatMap((metric) => metric.dataPoints.flatMap((point) => Object.values(point.attributes)))
      .map(String);
    expect(values.length).toBeGreaterThan(10);
    const alice = await userId(t, 'alice');
    const secrets = [...seen.filter((value) => value.length > 0), ...Object.values(SECRETS), alice, 'alice'];
    for (const value of values) for (const secret of secrets) expect(value).not.toContain(secret);
  });
});
