/**
 * What an application decides about its impersonations (src/grants/impersonation-policy.ts), with
 * openid-client as the relying party against a loopback issuer (two instances behind a balancer on
 * PostgreSQL): `requireActorToken` (catalogue B90), alone and with a subject token's `actorId`
 * binding, under 20 concurrent exchanges; and `impersonationTokenTtl`, capped by the resource's
 * `accessTokenTtl`, with `expires_in` telling the truth.
 */
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/config/defaults.js';
import { DRIVERS } from '../helpers/drivers.js';
import {
  ACCESS_TOKEN_TYPE,
  EXCHANGE_SECRET,
  exchange,
  loadExchangeWorld,
  mintSubjectToken,
  PAT_TOKEN_TYPE,
  signedInTokens,
  TOKEN_EXCHANGE,
  userId,
} from '../helpers/exchange.js';
import { BILLING, loadWorld, ORDERS, REDIRECT } from '../helpers/fixtures.js';
import { adminToken, api, startIssuer, type TestIssuer } from '../helpers/issuer.js';
import { payloadOf } from '../helpers/jwt.js';

describe.each(DRIVERS)('%s', (driver) => {
  let t: TestIssuer;
  let admin: string;
  let alice: string;
  let sam: string;
  /** Access tokens (openid) of sam, the support engineer, and of dave, another user. */
  let samToken: string;
  let daveToken: string;
  /** An application that requires an actor token for every impersonation. */
  let strict: { id: string; secret: string };
  let rp: client.Configuration;

  const insecure = { execute: [client.allowInsecureRequests] };

  beforeAll(async () => {
    t = await startIssuer(driver, { tokenExchange: { maxFailures: 1_000 } });
    await loadWorld(t);
    await loadExchangeWorld(t);
    admin = await adminToken(t);
    alice = await userId(t, 'alice');
    sam = await userId(t, 'sam');
    samToken = (await signedInTokens(t, 'sam')).access_token;
    daveToken = (await signedInTokens(t, 'dave')).access_token;
    const created = await api(t, admin, 'POST', '/applications', {
      name: 'Strict support console',
      type: 'Traditional',
      redirectUris: [REDIRECT],
      tokenExchangeEnabled: true,
      requireActorToken: true,
    });
    expect(created.status).toBe(201);
    strict = { id: created.body.id, secret: created.body.clientSecret };
    rp = await client.discovery(new URL(`${t.baseUrl}/oidc`), strict.id, strict.secret, undefined, insecure);
  });
  afterAll(() => t.close());

  const mint = (body: Record<string, unknown> = {}) => mintSubjectToken(t, admin, { userId: alice, ...body });
  const rpExchange = (parameters: Record<string, string>) =>
    client.genericGrantRequest(rp, TOKEN_EXCHANGE, { resource: ORDERS, scope: 'read:orders', ...parameters });
  const subject = (token: string) => ({ subject_token: token, subject_token_type: ACCESS_TOKEN_TYPE });
  const actor = (token: string) => ({ actor_token: token, actor_token_type: ACCESS_TOKEN_TYPE });

  describe('actor-required applications', () => {
    it('the Management API shows the policy, off by default, and changes it', async () => {
      expect((await api(t, admin, 'GET', `/applications/${strict.id}`)).body.requireActorToken).toBe(true);
      expect((await api(t, admin, 'GET', '/applications/te-web')).body.requireActorToken).toBe(false);
      const bad = await api(t, admin, 'PATCH', `/applications/${strict.id}`, { requireActorToken: 'yes' });
      expect(bad.status).toBe(400);
      expect(JSON.stringify(bad.body)).toContain('requireActorToken');
    });

    it('B90: an impersonation without an actor token is refused (invalid_request), and does not burn the subject token', async () => {
      const token = await mint();
      await expect(rpExchange(subject(token))).rejects.toMatchObject({
        error: 'invalid_request',
        error_description: expect.stringContaining('requires an actor token for every impersonation'),
      });
      // The same subject token, now with an actor token: act names who acts.
      const tokens = await rpExchange({ ...subject(token), ...actor(samToken) });
      expect(payloadOf(tokens.access_token)).toMatchObject({ sub: alice, act: { sub: sam } });
      const events = await api(
        t,
        admin,
        'GET',
        `/audit-events?applicationId=${strict.id}&type=token_exchange.failed`,
      );
      expect(events.body.items[0]).toMatchObject({
        reason: 'actor_token_required_by_application',
        actorId: null,
        details: { resource: ORDERS },
      });
    });

    it('B90: combined with the actorId binding, only the bound actor’s token is accepted', async () => {
      const bound = await mint({ actorId: sam, applicationId: strict.id });
      await expect(rpExchange(subject(bound))).rejects.toMatchObject({
        error: 'invalid_request',
        error_description: expect.stringContaining('requires an actor token'),
      });
      await expect(rpExchange({ ...subject(bound), ...actor(daveToken) })).rejects.toMatchObject({
        error: 'invalid_request',
        error_description: expect.stringContaining('belongs to another user'),
      });
      // A wrong actor burns a bound subject token (as before); a fresh one with the right actor works.
      const again = await mint({ actorId: sam, applicationId: strict.id });
      const tokens = await rpExchange({ ...subject(again), ...actor(samToken) });
      expect(payloadOf(tokens.access_token).act).toEqual({ sub: sam });
    });

    it('B90: of 20 concurrent exchanges with an actor token exactly one succeeds; without one all are refused', async () => {
      const token = await mint();
      const withoutActor = await Promise.allSettled(
        Array.from({ length: 20 }, () => rpExchange(subject(token))),
      );
      expect(withoutActor.every((result) => result.status === 'rejected')).toBe(true);
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, () => rpExchange({ ...subject(token), ...actor(samToken) })),
      );
      const won = results.filter((result) => result.status === 'fulfilled');
      expect(won).toHaveLength(1);
      for (const lost of results.filter((result) => result.status === 'rejected')) {
        expect((lost as PromiseRejectedResult).reason).toMatchObject({
          error: 'invalid_request',
          error_description: expect.stringContaining('already been used'),
        });
      }
    });

    it('the seed flow is unchanged where the policy is off: no actor token, no act', async () => {
      const res = await exchange(t, { ...subject(await mint()), resource: ORDERS, scope: 'read:orders' });
      expect(res.status).toBe(200);
      expect(payloadOf(res.body.access_token).act).toBeUndefined();
    });

    it('a seed file sets the policy and the lifetime, and refuses a lifetime out of range', async () => {
      await t.issuer.seed({
        applications: [
          {
            name: 'Seeded strict console',
            type: 'Traditional',
            clientId: 'b90-seeded',
            redirectUris: [REDIRECT],
            tokenExchangeEnabled: true,
            requireActorToken: true,
            impersonationTokenTtl: 90,
          },
        ],
      });
      expect(await t.issuer.store.applications.get('b90-seeded')).toMatchObject({
        requireActorToken: true,
        impersonationTokenTtl: 90,
      });
      const refused = await t.issuer
        .seed({
          applications: [{ name: 'Too long', type: 'MachineToMachine', impersonationTokenTtl: 86_400 }],
        })
        .catch((err: unknown) => err);
      expect(JSON.stringify(refused)).toContain('impersonationTokenTtl');
    });

    it('a personal access token is not an impersonation: exchanged as before by an actor-required application', async () => {
      const dave = await userId(t, 'dave');
      const pat = await api(t, admin, 'POST', `/users/${dave}/personal-access-tokens`, { name: 'b90-cli' });
      expect(pat.status).toBe(201);
      const tokens = await rpExchange({ subject_token: pat.body.value, subject_token_type: PAT_TOKEN_TYPE });
      expect(payloadOf(tokens.access_token)).toMatchObject({ sub: dave });
      expect(tokens.expires_in).toBe(3600);
    });
  });

  describe('impersonation token lifetimes', () => {
    async function setTtl(value: number | null) {
      const res = await api(t, admin, 'PATCH', `/applications/${strict.id}`, {
        impersonationTokenTtl: value,
      });
      expect(res.status).toBe(200);
      return res.body.impersonationTokenTtl as number;
    }

    it('default: well under the ordinary lifetime; expires_in is the token’s real lifetime', async () => {
      expect(await setTtl(null)).toBe(DEFAULTS.impersonation.tokenTtl);
      expect(DEFAULTS.impersonation.tokenTtl).toBeLessThan(3600);
      const tokens = await rpExchange({ ...subject(await mint()), ...actor(samToken) });
      const claims = payloadOf(tokens.access_token);
      expect(tokens.expires_in).toBe(DEFAULTS.impersonation.tokenTtl);
      expect(claims.exp - claims.iat).toBe(DEFAULTS.impersonation.tokenTtl);
    });

    it('per application, and never longer than the resource’s accessTokenTtl', async () => {
      expect(await setTtl(120)).toBe(120);
      const short = await rpExchange({ ...subject(await mint()), ...actor(samToken) });
      expect(short.expires_in).toBe(120);
      expect(payloadOf(short.access_token).exp - payloadOf(short.access_token).iat).toBe(120);
      // Billing's ordinary lifetime is 600 s: an application asking for 900 gets 600.
      expect(await setTtl(900)).toBe(900);
      const capped = await rpExchange({
        ...subject(await mint()),
        ...actor(samToken),
        resource: BILLING,
        scope: '',
      });
      expect(capped.expires_in).toBe(600);
      expect(payloadOf(capped.access_token).exp - payloadOf(capped.access_token).iat).toBe(600);
      await setTtl(null);
    });

    it('out-of-range lifetimes are refused with 400', async () => {
      for (const value of [
        DEFAULTS.impersonation.minTokenTtl - 1,
        DEFAULTS.impersonation.maxTokenTtl + 1,
        1.5,
      ]) {
        const res = await api(t, admin, 'PATCH', `/applications/${strict.id}`, {
          impersonationTokenTtl: value,
        });
        expect(res.status).toBe(400);
        expect(JSON.stringify(res.body)).toContain('impersonationTokenTtl');
      }
    });
  });
});
