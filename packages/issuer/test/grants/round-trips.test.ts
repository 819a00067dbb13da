/**
 * Round trips to PostgreSQL per token request, counted at the `pg` client (every `query` a
 * connection sends is one round trip): client credentials take one (the client, the resource and its
 * role scopes in one read), and none once an instance keeps that read (until the configuration
 * changes: `storage/sql/token-request-cache.ts`), a token exchange two (a read of the failure window, the subject token
 * or PAT, its user and the user's role scopes — the application and resource kept like client
 * credentials' —, then the consume or use together with the audit event). The rate limits count
 * every token request in memory: no counter statement is sent while a request runs (their background
 * flush is set apart here, so that nothing but the requests talks to the database while counting).
 * The answers and the audit trail are what the other suites check; here, what they cost.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { tokenRequest } from '../helpers/agent.js';
import {
  ACCESS_TOKEN_TYPE,
  exchange,
  loadExchangeWorld,
  mintSubjectToken,
  PAT_TOKEN_TYPE,
  userId,
} from '../helpers/exchange.js';
import { loadWorld, ORDERS, SECRETS } from '../helpers/fixtures.js';
import { adminToken, api, startIssuer, type TestIssuer } from '../helpers/issuer.js';
import { countedQueries } from '../helpers/pg-queries.js';

describe('postgres: round trips per token request', () => {
  let t: TestIssuer;
  let admin: string;
  let alice: string;

  beforeAll(async () => {
    // No key polling and no rate-limit flush during the test: nothing but the requests themselves
    // talks to the database while counting.
    t = await startIssuer('postgres', {
      keys: { reloadInterval: 0 },
      rateLimits: { syncInterval: 3_600_000 },
    });
    await loadWorld(t);
    await loadExchangeWorld(t);
    admin = await adminToken(t);
    alice = await userId(t, 'alice');
  });
  afterAll(() => t.close());
  afterEach(() => vi.restoreAllMocks());

  /** The queries sent while `request` runs (but the webhook dispatcher's poll), and its response. */
  const counted = countedQueries;

  const clientCredentials = () =>
    tokenRequest(
      t.baseUrl,
      { grant_type: 'client_credentials', resource: ORDERS, scope: 'read:orders' },
      { clientId: 'worker', clientSecret: SECRETS.worker },
    );

  /** A counter statement (a rate-limit or failure count): never sent by a successful request. */
  const COUNTER = /^INSERT INTO failure_counters/;

  it('client credentials: none once read, one on each instance after a change, no counter statement', async () => {
    // Each instance keeps the read once its notification connection is live (opened on first use).
    await vi.waitFor(
      async () => {
        for (let i = 0; i < 2; i++) expect((await counted(clientCredentials)).queries).toHaveLength(0);
      },
      { timeout: 5_000 },
    );
    for (let i = 0; i < 4; i++) {
      const { result, queries } = await counted(clientCredentials);
      expect(result.status).toBe(200);
      expect(queries).toHaveLength(0);
    }
    // A change of the configuration through one instance: both read again (the other on hearing it).
    const renamed = await api(t, admin, 'PATCH', '/applications/worker', { name: 'Worker, renamed' });
    expect(renamed.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (let i = 0; i < 2; i++) {
      const { result, queries } = await counted(clientCredentials);
      expect(result.status).toBe(200);
      expect(queries).toHaveLength(1);
      expect(queries[0]).not.toMatch(COUNTER);
    }
    for (let i = 0; i < 2; i++) expect((await counted(clientCredentials)).queries).toHaveLength(0);
  });

  it('token exchange of a subject token: two round trips, the last consuming and auditing', async () => {
    const tokens = await Promise.all(
      Array.from({ length: 6 }, () => mintSubjectToken(t, admin, { userId: alice })),
    );
    const exchangeOf = (token: string) => () =>
      exchange(t, {
        subject_token: token,
        subject_token_type: ACCESS_TOKEN_TYPE,
        resource: ORDERS,
        scope: 'read:orders',
      });
    for (const token of tokens.slice(0, 2)) expect((await exchangeOf(token)()).status).toBe(200);
    for (const token of tokens.slice(2)) {
      const { result, queries } = await counted(exchangeOf(token));
      expect(result.status).toBe(200);
      expect(queries).toHaveLength(2);
      expect(queries[0]).not.toMatch(COUNTER);
      // The user's part only: the application and the resource come from the kept reads.
      expect(queries[0]).toMatch(/\bsubject_tokens t\b/);
      expect(queries[0]).not.toMatch(/\b(?:applications a|resources r)\b/);
      expect(queries[1]).toMatch(/^WITH changed AS \(UPDATE subject_tokens[\s\S]*INSERT INTO audit_events/);
    }
    // Still single use: a replay is refused (and costs more, which is fine).
    const replay = await exchangeOf(tokens[5]!)();
    expect(replay.status).toBe(400);
    expect(replay.body.error_description).toContain('already been used');
  });

  it('B76: a refused exchange that burns its subject token: two round trips, burning and auditing together', async () => {
    const tokens = await Promise.all(
      Array.from({ length: 3 }, () => mintSubjectToken(t, admin, { userId: alice })),
    );
    for (const token of tokens) {
      const { result, queries } = await counted(() =>
        exchange(t, {
          subject_token: token,
          subject_token_type: ACCESS_TOKEN_TYPE,
          resource: ORDERS,
          scope: 'admin:orders',
        }),
      );
      expect(result.status).toBe(400);
      expect(result.body.error).toBe('invalid_scope');
      expect(queries).toHaveLength(2);
      expect(queries[0]).not.toMatch(COUNTER);
      // The user's part only: the application and the resource come from the kept reads.
      expect(queries[0]).toMatch(/\bsubject_tokens t\b/);
      expect(queries[0]).not.toMatch(/\b(?:applications a|resources r)\b/);
      expect(queries[1]).toMatch(/^WITH changed AS \(UPDATE subject_tokens[\s\S]*INSERT INTO audit_events/);
    }
    const failed = await t.issuer.store.auditEvents.list(
      { type: 'token_exchange.failed' },
      { page: 1, pageSize: 3 },
    );
    expect(failed.items.map((event) => event.reason)).toEqual([
      'invalid_scope',
      'invalid_scope',
      'invalid_scope',
    ]);
  });

  it('token exchange of a personal access token: two round trips', async () => {
    const dave = await userId(t, 'dave');
    const created = await api(t, admin, 'POST', `/users/${dave}/personal-access-tokens`, { name: 'rt' });
    expect(created.status).toBe(201);
    const exchangePat = () =>
      exchange(t, {
        subject_token: created.body.value,
        subject_token_type: PAT_TOKEN_TYPE,
        resource: ORDERS,
      });
    for (let i = 0; i < 2; i++) expect((await exchangePat()).status).toBe(200);
    const { result, queries } = await counted(exchangePat);
    expect(result.status).toBe(200);
    expect(queries).toHaveLength(2);
    expect(queries[0]).not.toMatch(COUNTER);
    expect(queries[1]).toMatch(/^WITH changed AS \(UPDATE personal_access_tokens/);
  });
});
