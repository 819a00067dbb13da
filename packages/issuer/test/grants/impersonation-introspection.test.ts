/**
 * Introspection of impersonation tokens (src/grants/impersonation-introspection.ts), over real HTTP
 * against a loopback issuer: who may introspect which token, expiry, JWTs that are not impersonation
 * tokens, and what the issuer logs.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULTS } from '../../src/config/defaults.js';
import { DRIVERS } from '../helpers/drivers.js';
import {
  ACCESS_TOKEN_TYPE,
  exchange,
  loadExchangeWorld,
  mintSubjectToken,
  PAT_TOKEN_TYPE,
  teWeb,
  userId,
} from '../helpers/exchange.js';
import { loadWorld, ORDERS, SECRETS } from '../helpers/fixtures.js';
import { adminToken, api, startIssuer, type TestIssuer } from '../helpers/issuer.js';

describe.each(DRIVERS)('%s', (driver) => {
  let t: TestIssuer;
  let admin: string;
  let alice: string;

  beforeAll(async () => {
    t = await startIssuer(driver);
    await loadWorld(t);
    await loadExchangeWorld(t);
    admin = await adminToken(t);
    alice = await userId(t, 'alice');
  });
  afterAll(() => t.close());

  /** Introspect `token` as a confidential client (Basic) or a public one (`client_id` only). */
  async function introspect(token: string, as: { clientId: string; clientSecret?: string }) {
    const form = new URLSearchParams({ token });
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    if (as.clientSecret === undefined) form.set('client_id', as.clientId);
    else
      headers.authorization = `Basic ${Buffer.from(`${as.clientId}:${as.clientSecret}`).toString('base64')}`;
    const res = await fetch(`${t.baseUrl}/oidc/token/introspection`, { method: 'POST', headers, body: form });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    return (await res.json()) as Record<string, unknown>;
  }

  async function impersonationToken(credentials: { clientId: string; clientSecret: string } | null) {
    const subjectToken = await mintSubjectToken(t, admin, { userId: alice });
    const res = await exchange(
      t,
      {
        subject_token: subjectToken,
        subject_token_type: ACCESS_TOKEN_TYPE,
        resource: ORDERS,
        ...(credentials === null ? { client_id: 'te-spa' } : {}),
      },
      credentials,
    );
    expect(res.status).toBe(200);
    return res.body.access_token as string;
  }

  it('a confidential M2M client introspects any impersonation token; a web app or a public one only its own', async () => {
    const consoles = await impersonationToken(teWeb);
    const spas = await impersonationToken(null);
    const worker = { clientId: 'worker', clientSecret: SECRETS.worker };
    expect((await introspect(consoles, worker)).active).toBe(true);
    expect((await introspect(spas, worker)).active).toBe(true);
    const web = { clientId: 'web-app', clientSecret: SECRETS.web };
    expect(await introspect(spas, web)).toEqual({ active: false });
    expect(await introspect(spas, { clientId: 'te-spa' })).toMatchObject({
      active: true,
      client_id: 'te-spa',
    });
    expect(await introspect(consoles, { clientId: 'te-spa' })).toEqual({ active: false });
  });

  it('an expired impersonation token is inactive', async () => {
    const token = await impersonationToken(teWeb);
    const now = Date.now();
    const clock = vi.spyOn(Date, 'now');
    try {
      clock.mockReturnValue(now + (DEFAULTS.impersonation.tokenTtl - 5) * 1000);
      expect((await introspect(token, teWeb)).active).toBe(true);
      clock.mockReturnValue(now + (DEFAULTS.impersonation.tokenTtl + 1) * 1000);
      expect(await introspect(token, teWeb)).toEqual({ active: false });
    } finally {
      clock.mockRestore();
    }
  });

  it('a JWT that is not an impersonation token (a PAT exchange, a forged one) is inactive, not an error', async () => {
    const dave = await userId(t, 'dave');
    const pat = await api(t, admin, 'POST', `/users/${dave}/personal-access-tokens`, {
      name: 'introspected',
    });
    const res = await exchange(t, {
      subject_token: pat.body.value,
      subject_token_type: PAT_TOKEN_TYPE,
      resource: ORDERS,
    });
    expect(res.status).toBe(200);
    expect(await introspect(res.body.access_token, teWeb)).toEqual({ active: false });
    expect(await introspect('eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.', teWeb)).toEqual({ active: false });
  });

  it('a client that fails to authenticate still gets 401, JWT or not', async () => {
    const token = await impersonationToken(teWeb);
    const res = await fetch(`${t.baseUrl}/oidc/token/introspection`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from('te-web:wrong-secret').toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ token }),
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_client');
  });

  it('RFC 7009: the application a token was issued to revokes it (ended, audited); another application cannot', async () => {
    const token = await impersonationToken(teWeb);
    const revoke = (as: { clientId: string; clientSecret: string }) =>
      fetch(`${t.baseUrl}/oidc/token/revocation`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${as.clientId}:${as.clientSecret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ token }),
      });
    const other = await revoke({ clientId: 'web-app', clientSecret: SECRETS.web });
    expect(other.status).toBe(200);
    expect((await introspect(token, teWeb)).active).toBe(true);
    const own = await revoke(teWeb);
    expect(own.status).toBe(200);
    expect(await introspect(token, teWeb)).toEqual({ active: false });
    const events = await api(t, admin, 'GET', '/audit-events?type=impersonation.ended&applicationId=te-web');
    expect(events.body.items[0]).toMatchObject({
      userId: alice,
      details: { revoked: true, endedBy: { clientId: 'te-web' } },
    });
  });

  it('no token value and no unsupported_token_type line in the issuer log', async () => {
    const token = await impersonationToken(teWeb);
    await introspect(token, teWeb);
    const log = t.logs.text;
    expect(log).toContain('token_exchange.succeeded');
    expect(log).not.toContain(token);
    expect(log).not.toContain(token.split('.')[2]!);
    expect(log).not.toContain('unsupported_token_type');
  });
});
