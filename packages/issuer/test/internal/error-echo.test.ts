/**
 * Bounded error answers (B73): an `invalid_scope` answer to a request naming 5,000 scopes (about
 * 29 KB) echoes at most `DEFAULTS.responses.maxEcho` characters of them, cut at a whole scope, in the
 * JSON body and in the audit trail; `error_description` is capped too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/config/defaults.js';
import { boundDescription, boundErrorBody, boundScopes } from '../../src/internal/error-echo.js';
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
import { adminToken, startIssuer, type TestIssuer } from '../helpers/issuer.js';

const MANY = Array.from({ length: 5_000 }, (_, i) => `s:${i}`).join(' ');

describe('boundScopes / boundDescription / boundErrorBody', () => {
  it('cuts at a whole scope and marks the cut; short values are untouched', () => {
    expect(boundScopes('read write admin', 12)).toBe('read write …');
    expect(boundScopes('read write admin', 11)).toBe('read …');
    expect(boundScopes('read write', 11)).toBe('read write');
    expect(boundScopes('x'.repeat(50), 10)).toBe(`${'x'.repeat(8)} …`);
    const bounded = boundScopes(MANY);
    expect(bounded.length).toBeLessThanOrEqual(DEFAULTS.responses.maxEcho);
    expect(bounded.endsWith(' …')).toBe(true);
    expect(MANY.startsWith(bounded.slice(0, -2))).toBe(true);
    expect(MANY.split(' ')).toContain(bounded.slice(0, -2).split(' ').at(-1));
    expect(boundDescription('y'.repeat(1_000))).toHaveLength(DEFAULTS.responses.maxErrorDescription);
    const body = { error: 'invalid_scope', error_description: 'no', scope: MANY };
    expect(boundErrorBody(body)).toEqual({ error: 'invalid_scope', error_description: 'no', scope: bounded });
    const small = { error: 'invalid_scope', scope: 'a b' };
    expect(boundErrorBody(small)).toBe(small);
    expect(boundErrorBody('<html>')).toBe('<html>');
  });
});

describe.each(DRIVERS)('%s', (driver) => {
  let t: TestIssuer;
  let admin: string;
  beforeAll(async () => {
    t = await startIssuer(driver);
    await loadWorld(t);
    await loadExchangeWorld(t);
    admin = await adminToken(t);
  });
  afterAll(() => t.close());

  it('B73: a token exchange asking for 5,000 scopes gets a short invalid_scope answer', async () => {
    const subject = await mintSubjectToken(t, admin, { userId: await userId(t, 'alice') });
    const res = await exchange(t, {
      subject_token: subject,
      subject_token_type: ACCESS_TOKEN_TYPE,
      resource: ORDERS,
      scope: MANY,
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_scope');
    expect(res.body.scope.length).toBeLessThanOrEqual(DEFAULTS.responses.maxEcho);
    expect(res.body.scope.endsWith(' …')).toBe(true);
    expect(JSON.stringify(res.body).length).toBeLessThan(1_024);
    const [event] = (
      await t.issuer.store.auditEvents.list({ type: 'token_exchange.failed' }, { page: 1, pageSize: 1 })
    ).items;
    expect(event!.reason).toBe('invalid_scope');
    expect(JSON.stringify(event).length).toBeLessThan(2_048);
  });

  it('B73: client credentials asking for 5,000 unknown scopes gets a short answer', async () => {
    const res = await tokenRequest(
      t.baseUrl,
      { grant_type: 'client_credentials', resource: ORDERS, scope: MANY },
      { clientId: 'worker', clientSecret: SECRETS.worker },
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_scope');
    expect(JSON.stringify(res.body).length).toBeLessThan(1_024);
  });
});
