/**
 * RFC 8693 token exchange for impersonation, over real HTTP against a loopback issuer. Catalogue B1–B21
 * (subject tokens, actor tokens), single use under 20 concurrent redemptions (B2), audit events.
 */
import { createVerifier } from '@gatehouse/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULTS } from '../../src/config/defaults.js';
import { tokenRequest } from '../helpers/agent.js';
import { DRIVERS } from '../helpers/drivers.js';
import {
  ACCESS_TOKEN_TYPE,
  EXCHANGE_SECRET,
  exchange,
  loadExchangeWorld,
  mintSubjectToken,
  PAT_TOKEN_TYPE,
  signedInTokens,
  teWeb,
  userId,
} from '../helpers/exchange.js';
import { BILLING, loadWorld, ORDERS, SECRETS } from '../helpers/fixtures.js';
import { adminToken, api, startIssuer, type TestIssuer } from '../helpers/issuer.js';
import { payloadOf, signRs256, strangerKey } from '../helpers/jwt.js';

describe.each(DRIVERS)('%s', (driver) => {
  let t: TestIssuer;
  let admin: string;
  let alice: string;
  let sam: string;
  let dave: string;
  /** An opaque access token of sam (openid), the support engineer. */
  let samToken: string;

  beforeAll(async () => {
    t = await startIssuer(driver, { tokenExchange: { maxFailures: 1_000 } });
    await loadWorld(t);
    await loadExchangeWorld(t);
    admin = await adminToken(t);
    alice = await userId(t, 'alice');
    sam = await userId(t, 'sam');
    dave = await userId(t, 'dave');
    samToken = (await signedInTokens(t, 'sam')).access_token;
  });
  afterAll(() => t.close());

  const subject = (token: string) => ({ subject_token: token, subject_token_type: ACCESS_TOKEN_TYPE });
  const actor = (token: string) => ({ actor_token: token, actor_token_type: ACCESS_TOKEN_TYPE });
  const mint = (body: Record<string, unknown> = {}) => mintSubjectToken(t, admin, { userId: alice, ...body });
  const verifierFor = (audience: string) =>
    createVerifier({ issuer: `${t.baseUrl}/oidc`, audience, strict: true });

  /** Expect 400 invalid_request whose description contains `text`. */
  function refused(res: { status: number; body: Record<string, any> }, text: string) {
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
    expect(res.body.error_description).toContain(text);
  }

  /** Claims of an access token signed with the issuer's active key. */
  async function signedByIssuer(claims: Record<string, unknown>, header: Record<string, unknown> = {}) {
    const key = (await t.issuer.store.keys.list()).find((k) => k.status === 'active')!.privateJwk;
    const now = Math.floor(Date.now() / 1000);
    return signRs256(
      key,
      {
        iss: `${t.baseUrl}/oidc`,
        aud: `${t.baseUrl}/oidc`,
        sub: sam,
        client_id: 'web-app',
        jti: `j${Math.random()}`,
        iat: now,
        exp: now + 300,
        scope: 'openid',
        ...claims,
      },
      header,
    );
  }

  describe('subject token only', () => {
    it('issues an at+jwt for the user: every claim, no act, no refresh token (B14)', async () => {
      const res = await exchange(t, { ...subject(await mint()), resource: ORDERS, scope: 'read:orders' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        access_token: expect.any(String),
        issued_token_type: ACCESS_TOKEN_TYPE,
        token_type: 'Bearer',
        expires_in: DEFAULTS.impersonation.tokenTtl,
        scope: 'read:orders',
      });
      const auth = await verifierFor(ORDERS).verify(res.body.access_token, { scopes: 'read:orders' });
      expect(Object.keys(auth.claims).sort()).toEqual(
        ['aud', 'client_id', 'exp', 'iat', 'iss', 'jti', 'scope', 'sub'].sort(),
      );
      expect(auth.claims).toMatchObject({
        sub: alice,
        client_id: 'te-web',
        iss: `${t.baseUrl}/oidc`,
        aud: ORDERS,
        scope: 'read:orders',
      });
      expect(auth.claims.exp! - auth.claims.iat!).toBe(DEFAULTS.impersonation.tokenTtl);
      expect(auth.claims.jti).toMatch(/^[\w-]{20,}$/);
      expect(auth.actor).toBeUndefined();
      expect(auth.delegated).toBe(false);
    });

    it("exp is the impersonation lifetime (300 s by default), under the resource's TTL (600 s)", async () => {
      const res = await exchange(t, { ...subject(await mint()), resource: BILLING });
      expect(res.body.expires_in).toBe(300);
      const claims = payloadOf(res.body.access_token);
      expect(claims.exp - claims.iat).toBe(300);
    });

    it('B1: a consumed subject token is refused', async () => {
      const token = await mint();
      expect((await exchange(t, { ...subject(token), resource: ORDERS })).status).toBe(200);
      refused(await exchange(t, { ...subject(token), resource: ORDERS }), 'already been used');
    });

    it('B2: of 20 concurrent exchanges of one subject token exactly one succeeds', async () => {
      const token = await mint();
      const results = await Promise.all(
        Array.from({ length: 20 }, () =>
          exchange(t, { ...subject(token), resource: ORDERS, scope: 'read:orders' }),
        ),
      );
      expect(results.filter((res) => res.status === 200)).toHaveLength(1);
      const failures = results.filter((res) => res.status !== 200);
      expect(failures).toHaveLength(19);
      for (const failure of failures) refused(failure, 'already been used');
    });

    it('B3: a subject token is good until its TTL and refused at TTL + 1 s', async () => {
      // Clock readings around the mints, so that neither side depends on where a second boundary falls
      // (lifetimes are whole seconds): `early` is younger than 599 s at before + 599 s, `late` at least
      // 601 s old at after + 601 s.
      const before = Date.now();
      const early = await mint();
      const late = await mint();
      const after = Date.now();
      const clock = vi.spyOn(Date, 'now');
      try {
        clock.mockReturnValue(before + 599_000);
        expect((await exchange(t, { ...subject(early), resource: ORDERS })).status).toBe(200);
        clock.mockReturnValue(after + 601_000);
        refused(await exchange(t, { ...subject(late), resource: ORDERS }), 'has expired');
      } finally {
        clock.mockRestore();
      }
    });

    it('B4: a token bound to another application is refused, and is burnt by the attempt', async () => {
      const token = await mint({ applicationId: 'te-web' });
      refused(
        await exchange(t, { ...subject(token), resource: ORDERS, client_id: 'te-spa' }, null),
        'bound to another application',
      );
      refused(await exchange(t, { ...subject(token), resource: ORDERS }), 'already been used');
      const ok = await mint({ applicationId: 'te-spa' });
      const res = await exchange(t, { ...subject(ok), resource: ORDERS, client_id: 'te-spa' }, null);
      expect(res.status).toBe(200);
      expect(payloadOf(res.body.access_token).client_id).toBe('te-spa');
    });

    it('B4: a token bound to an actor needs that actor’s token', async () => {
      refused(
        await exchange(t, { ...subject(await mint({ actorId: sam })), resource: ORDERS }),
        'bound to an actor',
      );
      const daveToken = (await signedInTokens(t, 'dave')).access_token;
      refused(
        await exchange(t, {
          ...subject(await mint({ actorId: sam })),
          ...actor(daveToken),
          resource: ORDERS,
        }),
        'belongs to another user',
      );
      const res = await exchange(t, {
        ...subject(await mint({ actorId: sam })),
        ...actor(samToken),
        resource: ORDERS,
      });
      expect(res.status).toBe(200);
      expect(payloadOf(res.body.access_token).act).toEqual({ sub: sam });
    });

    it('B5: the user suspended or deleted after minting → invalid_request', async () => {
      const carol = await api(t, admin, 'POST', '/users', { username: 'carol-b5' });
      const suspendedLater = await mintSubjectToken(t, admin, { userId: carol.body.id });
      const deletedLater = await mintSubjectToken(t, admin, { userId: carol.body.id });
      await api(t, admin, 'PUT', `/users/${carol.body.id}/suspension`, { suspended: true });
      refused(await exchange(t, { ...subject(suspendedLater), resource: ORDERS }), 'suspended');
      await api(t, admin, 'DELETE', `/users/${carol.body.id}`);
      refused(await exchange(t, { ...subject(deletedLater), resource: ORDERS }), 'no longer exists');
    });

    it('B6: an unknown or guessed value → invalid_request', async () => {
      refused(await exchange(t, { ...subject(`sub_${'A'.repeat(43)}`), resource: ORDERS }), 'unknown');
      refused(await exchange(t, { ...subject('guess'), resource: ORDERS }), 'unknown');
    });

    it('B7: a PAT or a JWT (an ID token) sent as a subject access token → invalid_request', async () => {
      refused(
        await exchange(t, { ...subject(`gpat_${'A'.repeat(43)}`), resource: ORDERS }),
        'personal access token',
      );
      const { id_token: idToken } = await signedInTokens(t, 'alice');
      refused(await exchange(t, { ...subject(idToken), resource: ORDERS }), 'not a JWT');
    });

    it.each([
      [
        'subject_token missing',
        { subject_token_type: ACCESS_TOKEN_TYPE, resource: ORDERS },
        "'subject_token'",
      ],
      ['subject_token_type missing', { subject_token: 'sub_x', resource: ORDERS }, "'subject_token_type'"],
      ['resource missing', { subject_token: 'sub_x', subject_token_type: ACCESS_TOKEN_TYPE }, "'resource'"],
      [
        'an unknown subject_token_type',
        { subject_token: 'sub_x', subject_token_type: 'urn:x', resource: ORDERS },
        'unsupported subject_token_type',
      ],
      [
        'audience instead of resource',
        { subject_token: 'sub_x', subject_token_type: ACCESS_TOKEN_TYPE, resource: ORDERS, audience: 'x' },
        'audience',
      ],
      [
        'a refresh token requested',
        {
          subject_token: 'sub_x',
          subject_token_type: ACCESS_TOKEN_TYPE,
          resource: ORDERS,
          requested_token_type: 'urn:ietf:params:oauth:token-type:refresh_token',
        },
        'only access tokens',
      ],
      [
        'resource repeated',
        { subject_token: 'sub_x', subject_token_type: ACCESS_TOKEN_TYPE, resource: [ORDERS, BILLING] },
        "'resource' parameter must not be provided twice",
      ],
      [
        'scope repeated',
        {
          subject_token: 'sub_x',
          subject_token_type: ACCESS_TOKEN_TYPE,
          resource: ORDERS,
          scope: ['a', 'b'],
        },
        "'scope' parameter",
      ],
      [
        'subject_token repeated',
        { subject_token: ['sub_x', 'sub_y'], subject_token_type: ACCESS_TOKEN_TYPE, resource: ORDERS },
        "'subject_token' parameter",
      ],
    ])('B8: %s → invalid_request', async (_, params, text) => {
      refused(await exchange(t, params as Record<string, string>), text);
    });

    it('B8: a failed parameter check does not consume the subject token', async () => {
      const token = await mint();
      refused(await exchange(t, { ...subject(token), resource: ORDERS, audience: ORDERS }), 'audience');
      expect((await exchange(t, { ...subject(token), resource: ORDERS })).status).toBe(200);
    });

    it('B9: a confidential client must authenticate: 401 invalid_client, with Basic → WWW-Authenticate', async () => {
      const token = await mint();
      const none = await exchange(t, { ...subject(token), resource: ORDERS, client_id: 'te-web' }, null);
      expect(none.status).toBe(401);
      expect(none.body.error).toBe('invalid_client');
      const wrong = await exchange(
        t,
        { ...subject(token), resource: ORDERS },
        {
          clientId: 'te-web',
          clientSecret: 'wrong',
        },
      );
      expect(wrong.status).toBe(401);
      expect(wrong.headers.get('www-authenticate')).toMatch(/^Basic /);
      // Client authentication failed before the grant ran: the token is still good.
      expect((await exchange(t, { ...subject(token), resource: ORDERS })).status).toBe(200);
    });

    it('B10: an application not enabled for token exchange → unauthorized_client; enabling it works', async () => {
      const token = await mint();
      const web = { clientId: 'web-app', clientSecret: SECRETS.web };
      const denied = await exchange(t, { ...subject(token), resource: ORDERS }, web);
      expect(denied.status).toBe(400);
      expect(denied.body.error).toBe('unauthorized_client');
      const spa = await exchange(t, { ...subject(token), resource: ORDERS, client_id: 'spa-app' }, null);
      expect(spa.body.error).toBe('unauthorized_client');
      await api(t, admin, 'PATCH', '/applications/web-app', { tokenExchangeEnabled: true });
      try {
        expect((await exchange(t, { ...subject(token), resource: ORDERS }, web)).status).toBe(200);
      } finally {
        await api(t, admin, 'PATCH', '/applications/web-app', { tokenExchangeEnabled: false });
      }
    });

    it('B10: a public client enabled for token exchange sends client_id only', async () => {
      const res = await exchange(
        t,
        { ...subject(await mint()), resource: ORDERS, client_id: 'te-spa' },
        null,
      );
      expect(res.status).toBe(200);
    });

    it.each([
      ['an unregistered resource', 'https://unknown.example.com'],
      ['a resource with a fragment', `${ORDERS}#x`],
      ['a relative resource', '/orders'],
      ['the Management API', 'MANAGEMENT'],
    ])('B11/B12: %s → invalid_target, and the subject token stays usable', async (_, resource) => {
      const token = await mint();
      const target = resource === 'MANAGEMENT' ? `${t.baseUrl}/api` : resource;
      const res = await exchange(t, { ...subject(token), resource: target });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_target');
      expect((await exchange(t, { ...subject(token), resource: ORDERS })).status).toBe(200);
    });

    it('B13: requested ∩ the user’s role scopes; none requested grants none; none granted → invalid_scope', async () => {
      const some = await exchange(t, {
        ...subject(await mint({ userId: dave })),
        resource: ORDERS,
        scope: 'openid read:orders write:orders admin:orders',
      });
      expect(some.body.scope).toBe('read:orders write:orders');
      expect(payloadOf(some.body.access_token).scope).toBe('read:orders write:orders');
      const empty = await exchange(t, { ...subject(await mint()), resource: ORDERS });
      expect(empty.status).toBe(200);
      expect(empty.body.scope).toBe('');
      expect(payloadOf(empty.body.access_token).scope).toBeUndefined();
      const none = await exchange(t, { ...subject(await mint()), resource: ORDERS, scope: 'admin:orders' });
      expect(none.status).toBe(400);
      expect(none.body.error).toBe('invalid_scope');
    });

    it('B14: offline_access never yields a refresh token', async () => {
      const res = await exchange(t, {
        ...subject(await mint()),
        resource: ORDERS,
        scope: 'offline_access read:orders',
      });
      expect(res.status).toBe(200);
      expect(res.body.refresh_token).toBeUndefined();
      expect(res.body.id_token).toBeUndefined();
      expect(res.body.issued_token_type).toBe(ACCESS_TOKEN_TYPE);
    });

    it('B15: an impersonation token is refused by the Management API', async () => {
      const res = await exchange(t, { ...subject(await mint()), ...actor(samToken), resource: ORDERS });
      const denied = await api(t, res.body.access_token, 'GET', '/users');
      expect(denied.status).toBe(401);
      // With the Management API's audience (forged with the issuer's key): act → 403.
      const forged = await signedByIssuer({
        aud: `${t.baseUrl}/api`,
        sub: t.admin.clientId,
        client_id: t.admin.clientId,
        scope: 'all',
        act: { sub: sam },
      });
      expect((await api(t, forged, 'GET', '/users')).status).toBe(403);
    });
  });

  describe('actor tokens', () => {
    it('the signed-in user’s opaque token: act = { sub: actor }, seen by @gatehouse/core as the actor', async () => {
      const res = await exchange(t, {
        ...subject(await mint()),
        ...actor(samToken),
        resource: ORDERS,
        scope: 'read:orders',
      });
      expect(res.status).toBe(200);
      const auth = await verifierFor(ORDERS).verify(res.body.access_token, { scopes: 'read:orders' });
      expect(auth.subject).toBe(alice);
      expect(auth.claims.act).toEqual({ sub: sam });
      expect(auth.actor).toEqual({ sub: sam });
      expect(auth.delegated).toBe(true);
      await expect(
        verifierFor(ORDERS).verify(res.body.access_token, { allowDelegation: false }),
      ).rejects.toMatchObject({ status: 403 });
    });

    it('B16: an actor token for an API audience → invalid_request', async () => {
      const apiToken = (await signedInTokens(t, 'dave', 'openid read:orders', ORDERS)).access_token;
      expect(payloadOf(apiToken).aud).toBe(ORDERS);
      refused(
        await exchange(t, { ...subject(await mint()), ...actor(apiToken), resource: ORDERS }),
        'another audience',
      );
    });

    it('B17: no openid, or openid only as part of a word → invalid_request', async () => {
      const emailOnly = (await signedInTokens(t, 'sam', 'email')).access_token;
      refused(
        await exchange(t, { ...subject(await mint()), ...actor(emailOnly), resource: ORDERS }),
        'openid',
      );
      for (const scope of ['openidx', 'notopenid', 'openidx notopenid profile']) {
        refused(
          await exchange(t, {
            ...subject(await mint()),
            ...actor(await signedByIssuer({ scope })),
            resource: ORDERS,
          }),
          'openid',
        );
      }
    });

    it('a JWT access token of this issuer addressed to the issuer is accepted, and its act chain nests', async () => {
      const plain = await exchange(t, {
        ...subject(await mint()),
        ...actor(await signedByIssuer({ scope: 'profile openid' })),
        resource: ORDERS,
      });
      expect(plain.status).toBe(200);
      expect(payloadOf(plain.body.access_token).act).toEqual({ sub: sam });
      const chained = await exchange(t, {
        ...subject(await mint()),
        ...actor(await signedByIssuer({ act: { sub: dave, act: { sub: 'usr_root' } } })),
        resource: ORDERS,
      });
      expect(chained.status).toBe(200);
      const auth = await verifierFor(ORDERS).verify(chained.body.access_token);
      expect(auth.actor).toEqual({ sub: sam, act: { sub: dave, act: { sub: 'usr_root' } } });
      const deep = { sub: 'a', act: { sub: 'b', act: { sub: 'c', act: { sub: 'd', act: { sub: 'e' } } } } };
      refused(
        await exchange(t, {
          ...subject(await mint()),
          ...actor(await signedByIssuer({ act: deep })),
          resource: ORDERS,
        }),
        'act',
      );
    });

    it('B18: an expired or revoked actor token → invalid_request', async () => {
      const past = Math.floor(Date.now() / 1000) - 1_000;
      refused(
        await exchange(t, {
          ...subject(await mint()),
          ...actor(await signedByIssuer({ iat: past - 100, exp: past })),
          resource: ORDERS,
        }),
        'expired',
      );
      const revocable = (await signedInTokens(t, 'sam')).access_token;
      const revoked = await fetch(`${t.baseUrl}/oidc/token/revocation`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`web-app:${SECRETS.web}`).toString('base64')}`,
        },
        body: new URLSearchParams({ token: revocable }),
      });
      expect(revoked.status).toBe(200);
      refused(
        await exchange(t, { ...subject(await mint()), ...actor(revocable), resource: ORDERS }),
        'unknown, expired or revoked',
      );
      const opaqueExpired = (await signedInTokens(t, 'sam')).access_token;
      // A Management API token of now: the one of beforeAll may be older than the clock tolerance.
      const freshAdmin = await adminToken(t);
      const clock = vi.spyOn(Date, 'now').mockReturnValue(Date.now() + 3_601_000);
      try {
        const subjectToken = await mintSubjectToken(t, freshAdmin, { userId: alice });
        refused(
          await exchange(t, { ...subject(subjectToken), ...actor(opaqueExpired), resource: ORDERS }),
          'unknown, expired or revoked',
        );
      } finally {
        clock.mockRestore();
      }
    });

    it('B19: an actor token from another issuer, or self-signed → invalid_request', async () => {
      refused(
        await exchange(t, {
          ...subject(await mint()),
          ...actor(await signedByIssuer({ iss: 'https://evil.example.com/oidc' })),
          resource: ORDERS,
        }),
        'not issued by this issuer',
      );
      const key = (await t.issuer.store.keys.list()).find((k) => k.status === 'active')!;
      const selfSigned = signRs256(strangerKey(), payloadOf(await signedByIssuer({})), { kid: key.kid });
      refused(
        await exchange(t, { ...subject(await mint()), ...actor(selfSigned), resource: ORDERS }),
        'not issued by this issuer',
      );
      refused(
        await exchange(t, {
          ...subject(await mint()),
          ...actor(signRs256(strangerKey(), payloadOf(await signedByIssuer({})))),
          resource: ORDERS,
        }),
        'not issued by this issuer',
      );
    });

    it('B7: an ID token as the actor token fails the typ check', async () => {
      const { id_token: idToken } = await signedInTokens(t, 'sam');
      refused(
        await exchange(t, { ...subject(await mint()), ...actor(idToken), resource: ORDERS }),
        'not an access token',
      );
    });

    it('the actor token of an application (M2M) or of an unknown user → invalid_request', async () => {
      refused(
        await exchange(t, {
          ...subject(await mint()),
          ...actor(await signedByIssuer({ sub: 'worker', client_id: 'worker' })),
          resource: ORDERS,
        }),
        'application',
      );
      refused(
        await exchange(t, {
          ...subject(await mint()),
          ...actor(await signedByIssuer({ sub: 'usr_ghost' })),
          resource: ORDERS,
        }),
        'known user',
      );
    });

    it.each([
      ['actor_token without actor_token_type', { actor_token: 'x' }],
      ['actor_token_type without actor_token', { actor_token_type: ACCESS_TOKEN_TYPE }],
    ])('B20: %s → invalid_request', async (_, params) => {
      refused(await exchange(t, { ...subject(await mint()), ...params, resource: ORDERS }), 'together');
    });

    it('B20: another actor_token_type → invalid_request', async () => {
      refused(
        await exchange(t, {
          ...subject(await mint()),
          actor_token: samToken,
          actor_token_type: 'urn:ietf:params:oauth:token-type:id_token',
          resource: ORDERS,
        }),
        'actor_token_type',
      );
    });

    it('B21: act holds only { sub } of the verified actor; an act parameter is ignored', async () => {
      const withParam = await exchange(t, {
        ...subject(await mint()),
        resource: ORDERS,
        act: JSON.stringify({ sub: 'usr_evil' }),
        may_act: JSON.stringify({ sub: 'usr_evil' }),
      });
      expect(withParam.status).toBe(200);
      expect(payloadOf(withParam.body.access_token).act).toBeUndefined();
      expect(payloadOf(withParam.body.access_token).may_act).toBeUndefined();
      const withActor = await exchange(t, {
        ...subject(await mint()),
        ...actor(samToken),
        resource: ORDERS,
        act: JSON.stringify({ sub: 'usr_evil' }),
      });
      expect(payloadOf(withActor.body.access_token).act).toEqual({ sub: sam });
    });
  });

  describe('personal access tokens', () => {
    const pat = (token: string) => ({ subject_token: token, subject_token_type: PAT_TOKEN_TYPE });
    async function createPat(user: string, body: Record<string, unknown>) {
      const res = await api(t, admin, 'POST', `/users/${user}/personal-access-tokens`, body);
      expect(res.status).toBe(201);
      return res.body as { id: string; value: string };
    }

    it('stands in for its user, reusable, scopes limited by roles and by the PAT; no refresh token', async () => {
      const { value, id } = await createPat(dave, { name: 'cli', scopes: ['read:orders', 'admin:orders'] });
      const first = await exchange(t, {
        ...pat(value),
        resource: ORDERS,
        scope: 'read:orders write:orders admin:orders',
      });
      expect(first.status).toBe(200);
      expect(first.body).toEqual({
        access_token: expect.any(String),
        issued_token_type: ACCESS_TOKEN_TYPE,
        token_type: 'Bearer',
        expires_in: 3600,
        scope: 'read:orders',
      });
      const auth = await verifierFor(ORDERS).verify(first.body.access_token);
      expect(auth.claims).toMatchObject({
        sub: dave,
        client_id: 'te-web',
        aud: ORDERS,
        scope: 'read:orders',
      });
      expect(auth.actor).toBeUndefined();
      const second = await exchange(t, { ...pat(value), resource: ORDERS, scope: 'read:orders' });
      expect(second.status).toBe(200);
      expect(second.body.access_token).not.toBe(first.body.access_token);
      const again = await exchange(
        t,
        { ...pat(value), resource: ORDERS, scope: 'read:orders', client_id: 'te-spa' },
        null,
      );
      expect(again.status).toBe(200);
      const none = await exchange(t, { ...pat(value), resource: ORDERS, scope: 'write:orders' });
      expect(none.body.error).toBe('invalid_scope');
      const listed = await api(t, admin, 'GET', `/users/${dave}/personal-access-tokens`);
      expect(listed.body.items.find((item: { id: string }) => item.id === id).lastUsedAt).not.toBeNull();
    });

    it('a PAT without scopes is limited by the roles only', async () => {
      const { value } = await createPat(dave, { name: 'unlimited' });
      const res = await exchange(t, {
        ...pat(value),
        resource: ORDERS,
        scope: 'read:orders write:orders admin:orders',
      });
      expect(res.body.scope).toBe('read:orders write:orders');
    });

    it('B46: a revoked PAT → invalid_request', async () => {
      const { value, id } = await createPat(dave, { name: 'revoked' });
      expect((await exchange(t, { ...pat(value), resource: ORDERS })).status).toBe(200);
      await api(t, admin, 'DELETE', `/users/${dave}/personal-access-tokens/${id}`);
      refused(await exchange(t, { ...pat(value), resource: ORDERS }), 'unknown or has been revoked');
    });

    it('B47: an expired PAT → invalid_request', async () => {
      const { value } = await createPat(dave, {
        name: 'short',
        expiresAt: new Date(Date.now() + 60_000).toISOString(),
      });
      expect((await exchange(t, { ...pat(value), resource: ORDERS })).status).toBe(200);
      const clock = vi.spyOn(Date, 'now').mockReturnValue(Date.now() + 61_000);
      try {
        refused(await exchange(t, { ...pat(value), resource: ORDERS }), 'has expired');
      } finally {
        clock.mockRestore();
      }
    });

    it('B7: a PAT sent as an access token, or a subject token sent as a PAT → invalid_request', async () => {
      const { value } = await createPat(alice, { name: 'typed' });
      refused(await exchange(t, { ...subject(value), resource: ORDERS }), 'personal access token');
      const token = await mint();
      refused(await exchange(t, { ...pat(token), resource: ORDERS }), 'unknown');
      // Neither attempt consumed anything.
      expect((await exchange(t, { ...subject(token), resource: ORDERS })).status).toBe(200);
      expect((await exchange(t, { ...pat(value), resource: ORDERS })).status).toBe(200);
    });

    it('refuses an actor token with a PAT, and a suspended owner', async () => {
      const { value } = await createPat(alice, { name: 'acted' });
      refused(
        await exchange(t, { ...pat(value), ...actor(samToken), resource: ORDERS }),
        'actor tokens are not accepted',
      );
      const eve = await api(t, admin, 'POST', '/users', { username: 'eve-pat' });
      const evePat = await createPat(eve.body.id, { name: 'eve' });
      await api(t, admin, 'PUT', `/users/${eve.body.id}/suspension`, { suspended: true });
      refused(await exchange(t, { ...pat(evePat.value), resource: ORDERS }), 'suspended');
    });

    it('records PAT exchanges in the audit trail', async () => {
      const { value, id } = await createPat(dave, { name: 'audited' });
      await exchange(t, { ...pat(value), resource: ORDERS, scope: 'read:orders' });
      const events = await api(t, admin, 'GET', `/audit-events?userId=${dave}&type=token_exchange.succeeded`);
      expect(events.body.items[0]).toMatchObject({
        userId: dave,
        actorId: null,
        details: { personalAccessTokenId: id, subjectTokenType: PAT_TOKEN_TYPE, scope: 'read:orders' },
      });
    });
  });

  describe('audit trail', () => {
    it('records successes and failures with reasons, filterable by actor and application', async () => {
      const token = await mint({ context: { ticketId: 'AUD-9' } });
      const ok = await exchange(t, {
        ...subject(token),
        ...actor(samToken),
        resource: ORDERS,
        scope: 'read:orders',
      });
      expect(ok.status).toBe(200);
      await exchange(t, { ...subject(token), ...actor(samToken), resource: ORDERS });
      await exchange(
        t,
        { ...subject(await mint()), resource: ORDERS },
        { clientId: 'web-app', clientSecret: SECRETS.web },
      );
      const events = await api(
        t,
        admin,
        'GET',
        `/audit-events?actorId=${sam}&applicationId=te-web&pageSize=100`,
      );
      const [failed, succeeded] = events.body.items;
      expect(succeeded).toMatchObject({
        type: 'token_exchange.succeeded',
        applicationId: 'te-web',
        userId: alice,
        actorId: sam,
        reason: null,
        details: {
          resource: ORDERS,
          scope: 'read:orders',
          jti: payloadOf(ok.body.access_token).jti,
          subjectTokenType: ACCESS_TOKEN_TYPE,
          context: { ticketId: 'AUD-9' },
        },
      });
      expect(failed).toMatchObject({
        type: 'token_exchange.failed',
        userId: alice,
        reason: 'subject_token_consumed',
        details: { subjectTokenId: succeeded.details.subjectTokenId, context: { ticketId: 'AUD-9' } },
      });
      const unauthorized = await api(
        t,
        admin,
        'GET',
        '/audit-events?applicationId=web-app&type=token_exchange.failed',
      );
      expect(unauthorized.body.items[0].reason).toBe('unauthorized_client');
      expect(JSON.stringify(events.body)).not.toContain(token);
      expect(JSON.stringify(events.body)).not.toContain(samToken);
    });
  });

  describe('failure limit (B6)', () => {
    let limited: TestIssuer;
    beforeAll(async () => {
      limited = await startIssuer(driver, { tokenExchange: { maxFailures: 3, failureWindow: 60 } });
      await loadWorld(limited);
      await loadExchangeWorld(limited);
    });
    afterAll(() => limited.close());

    it('after N unknown subject tokens from one client → 429 with Retry-After; other clients are unaffected', async () => {
      const limitedAdmin = await adminToken(limited);
      const good = await mintSubjectToken(limited, limitedAdmin, { userId: await userId(limited, 'alice') });
      for (let i = 0; i < 3; i++) {
        const res = await exchange(limited, { ...subject(`sub_guess${i}`), resource: ORDERS });
        expect(res.body.error_description).toContain('unknown');
      }
      const blocked = await exchange(limited, { ...subject(good), resource: ORDERS });
      expect(blocked.status).toBe(429);
      expect(blocked.body.error).toBe('too_many_requests');
      expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Number(blocked.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      // The blocked attempt did not consume the token; another client may still exchange.
      const other = await exchange(
        limited,
        { ...subject(good), resource: ORDERS, client_id: 'te-spa' },
        null,
      );
      expect(other.status).toBe(200);
      const events = await api(limited, limitedAdmin, 'GET', '/audit-events?type=token_exchange.failed');
      expect(events.body.items[0].reason).toBe('rate_limited');
    });

    it('consumed or expired tokens do not count as guesses', async () => {
      const limitedAdmin = await adminToken(limited);
      const token = await mintSubjectToken(limited, limitedAdmin, { userId: await userId(limited, 'alice') });
      const spa = { client_id: 'te-spa' };
      expect((await exchange(limited, { ...subject(token), resource: ORDERS, ...spa }, null)).status).toBe(
        200,
      );
      for (let i = 0; i < 5; i++) {
        refused(
          await exchange(limited, { ...subject(token), resource: ORDERS, ...spa }, null),
          'already been used',
        );
      }
    });
  });

  it('client_secret_post works for token exchange too', async () => {
    await t.issuer.seed({
      applications: [
        {
          name: 'Post exchanger',
          type: 'Traditional',
          clientId: 'te-post',
          clientSecret: EXCHANGE_SECRET,
          tokenEndpointAuthMethod: 'client_secret_post',
          redirectUris: ['http://127.0.0.1:8976/callback'],
          tokenExchangeEnabled: true,
        },
      ],
    });
    const res = await tokenRequest(t.baseUrl, {
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      ...subject(await mint()),
      resource: ORDERS,
      client_id: 'te-post',
      client_secret: EXCHANGE_SECRET,
    });
    expect(res.status).toBe(200);
    expect(teWeb.clientId).toBe('te-web');
  });
});
