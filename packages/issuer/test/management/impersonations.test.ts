/**
 * `POST /api/impersonations/end` (src/management/impersonations.ts): ending the impersonation of one
 * subject token (catalogue B91) or everything an actor does as others (B92). The issuer's own
 * introspection endpoint, called with openid-client, is the judge: ended tokens are `active: false`
 * at once (on every instance, on PostgreSQL), other tokens of the same users stay active, and the
 * audit trail names who ended it; an end racing an exchange never leaves a live token (B93).
 */
import { createVerifier } from '@gatehouse/core';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRIVERS } from '../helpers/drivers.js';
import {
  ACCESS_TOKEN_TYPE,
  exchange,
  loadExchangeWorld,
  mintSubjectToken,
  signedInTokens,
  userId,
} from '../helpers/exchange.js';
import { loadWorld, ORDERS, SECRETS } from '../helpers/fixtures.js';
import { adminToken, api, managementToken, startIssuer, type TestIssuer } from '../helpers/issuer.js';
import { payloadOf } from '../helpers/jwt.js';

describe.each(DRIVERS)('%s', (driver) => {
  let t: TestIssuer;
  let admin: string;
  let alice: string;
  let dave: string;
  let sam: string;
  let samToken: string;
  let daveToken: string;
  /** openid-client as a confidential Machine-to-Machine application (a resource server) that introspects. */
  let introspector: client.Configuration;

  beforeAll(async () => {
    t = await startIssuer(driver);
    await loadWorld(t);
    await loadExchangeWorld(t);
    admin = await adminToken(t);
    alice = await userId(t, 'alice');
    dave = await userId(t, 'dave');
    sam = await userId(t, 'sam');
    samToken = (await signedInTokens(t, 'sam')).access_token;
    daveToken = (await signedInTokens(t, 'dave')).access_token;
    introspector = await client.discovery(new URL(`${t.baseUrl}/oidc`), 'worker', SECRETS.worker, undefined, {
      execute: [client.allowInsecureRequests],
    });
  });
  afterAll(() => t.close());

  /** Mint a subject token for `userId` and exchange it (with `actorToken` when given). */
  async function impersonate(userId: string, actorToken?: string, bind: Record<string, unknown> = {}) {
    const subjectToken = await mintSubjectToken(t, admin, { userId, ...bind });
    const res = await exchange(t, {
      subject_token: subjectToken,
      subject_token_type: ACCESS_TOKEN_TYPE,
      ...(actorToken === undefined ? {} : { actor_token: actorToken, actor_token_type: ACCESS_TOKEN_TYPE }),
      resource: ORDERS,
    });
    expect(res.status).toBe(200);
    return { subjectToken, accessToken: res.body.access_token as string };
  }

  const active = async (token: string) => (await client.tokenIntrospection(introspector, token)).active;
  const end = (body: Record<string, unknown>, token = admin) =>
    api(t, token, 'POST', '/impersonations/end', body);

  /** The id of the subject token an access token was exchanged for, from the audit trail. */
  async function subjectTokenIdOf(accessToken: string): Promise<string> {
    const { jti } = payloadOf(accessToken);
    const events = await api(t, admin, 'GET', '/audit-events?type=token_exchange.succeeded&pageSize=100');
    const event = events.body.items.find((item: { details: { jti?: string } }) => item.details.jti === jti);
    return event.details.subjectTokenId;
  }

  it('introspection answers for a live impersonation token as its JWT says, act included', async () => {
    const { accessToken } = await impersonate(alice, samToken);
    const claims = payloadOf(accessToken);
    const answer = await client.tokenIntrospection(introspector, accessToken);
    expect(answer).toMatchObject({
      active: true,
      sub: alice,
      client_id: 'te-web',
      aud: ORDERS,
      exp: claims.exp,
      iat: claims.iat,
      jti: claims.jti,
      act: { sub: sam },
      token_type: 'Bearer',
    });
    // A token that was never issued is not active, whatever it looks like.
    expect(await active(`${accessToken.slice(0, -4)}AAAA`)).toBe(false);
  });

  it('B91: ending one subject token’s impersonation: its token is inactive at once, another token of the same user is not; the audit names who ended it', async () => {
    const first = await impersonate(alice, samToken);
    const second = await impersonate(alice, samToken);
    const subjectTokenId = await subjectTokenIdOf(first.accessToken);
    expect(await active(first.accessToken)).toBe(true);

    const res = await end({ subjectTokenId });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ endedTokens: 1, cancelledSubjectTokens: 0 });
    expect(await active(first.accessToken)).toBe(false);
    expect(await active(second.accessToken)).toBe(true);

    const events = await api(t, admin, 'GET', '/audit-events?type=impersonation.ended&pageSize=100');
    const event = events.body.items.find(
      (item: { details: { subjectTokenId?: string } }) => item.details.subjectTokenId === subjectTokenId,
    );
    expect(event).toMatchObject({
      applicationId: t.admin.clientId,
      userId: alice,
      details: {
        endedBy: { clientId: t.admin.clientId, subject: t.admin.clientId },
        users: [alice],
        endedTokens: [payloadOf(first.accessToken).jti],
        cancelledSubjectTokens: [],
      },
    });
    // Never a token value in the trail.
    expect(JSON.stringify(events.body)).not.toContain(first.accessToken);

    // Ending again changes nothing (and says so).
    expect((await end({ subjectTokenId })).body).toEqual({ endedTokens: 0, cancelledSubjectTokens: 0 });
  });

  it('B91: an API introspecting impersonation tokens (core, mode delegated) refuses the ended token at its next request; another token of the same user still passes', async () => {
    const orders = createVerifier({
      issuer: `${t.baseUrl}/oidc`,
      audience: ORDERS,
      onWarning: false,
      // Impersonation tokens (JWTs with act) are asked about on every request; other JWTs stay local.
      introspection: { clientId: 'worker', clientSecret: SECRETS.worker, mode: 'delegated' },
    });
    const first = await impersonate(alice, samToken);
    const second = await impersonate(alice, samToken);
    await expect(orders.verify(first.accessToken)).resolves.toMatchObject({
      subject: alice,
      delegated: true,
      actor: { sub: sam },
    });
    expect((await end({ subjectTokenId: await subjectTokenIdOf(first.accessToken) })).status).toBe(200);
    await expect(orders.verify(first.accessToken)).rejects.toMatchObject({ status: 401, reason: 'inactive' });
    await expect(orders.verify(second.accessToken)).resolves.toMatchObject({ subject: alice });
  });

  it('B91: a subject token named by its value and not redeemed yet is cancelled: its exchange is refused', async () => {
    const subjectToken = await mintSubjectToken(t, admin, { userId: alice });
    const res = await end({ subjectToken });
    expect(res.body).toEqual({ endedTokens: 0, cancelledSubjectTokens: 1 });
    const refused = await exchange(t, {
      subject_token: subjectToken,
      subject_token_type: ACCESS_TOKEN_TYPE,
      resource: ORDERS,
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_request');
  });

  it('B92: ending everything an actor does as others ends only that actor’s impersonations', async () => {
    const samAsAlice = await impersonate(alice, samToken);
    const samAsDave = await impersonate(dave, samToken);
    const daveAsAlice = await impersonate(alice, daveToken);
    const noActor = await impersonate(alice);
    const pending = await mintSubjectToken(t, admin, { userId: alice, actorId: sam });

    const res = await end({ actorId: sam });
    expect(res.status).toBe(200);
    expect(res.body.endedTokens).toBeGreaterThanOrEqual(2);
    expect(res.body.cancelledSubjectTokens).toBe(1);
    expect(await active(samAsAlice.accessToken)).toBe(false);
    expect(await active(samAsDave.accessToken)).toBe(false);
    expect(await active(daveAsAlice.accessToken)).toBe(true);
    expect(await active(noActor.accessToken)).toBe(true);
    const late = await exchange(t, {
      subject_token: pending,
      subject_token_type: ACCESS_TOKEN_TYPE,
      actor_token: samToken,
      actor_token_type: ACCESS_TOKEN_TYPE,
      resource: ORDERS,
    });
    expect(late.status).toBe(400);

    // sam may impersonate again afterwards: ending is not a ban.
    const again = await impersonate(alice, samToken);
    expect(await active(again.accessToken)).toBe(true);

    const events = await api(t, admin, 'GET', `/audit-events?type=impersonation.ended&actorId=${sam}`);
    expect(events.body.items[0]).toMatchObject({
      actorId: sam,
      userId: null,
      details: { endedBy: { clientId: t.admin.clientId } },
    });
    expect([...events.body.items[0].details.users].sort()).toEqual([alice, dave].sort());
  });

  it('B93: an end racing the exchange of the same subject token never leaves a live token', async () => {
    for (let round = 0; round < 8; round++) {
      const subjectToken = await mintSubjectToken(t, admin, { userId: alice });
      const [exchanged, ended] = await Promise.all([
        exchange(t, {
          subject_token: subjectToken,
          subject_token_type: ACCESS_TOKEN_TYPE,
          actor_token: samToken,
          actor_token_type: ACCESS_TOKEN_TYPE,
          resource: ORDERS,
        }),
        end({ subjectToken }),
      ]);
      expect(ended.status).toBe(200);
      // Either the end came first (the subject token was cancelled, the exchange refused) or the
      // exchange did (its token was ended): never a live token.
      if (exchanged.status === 200) {
        expect(await active(exchanged.body.access_token)).toBe(false);
        expect(ended.body).toEqual({ endedTokens: 1, cancelledSubjectTokens: 0 });
      } else {
        expect(exchanged.body.error_description).toContain('already been used');
        expect(ended.body).toEqual({ endedTokens: 0, cancelledSubjectTokens: 1 });
      }
    }
  });

  it('bad requests: exactly one selector (400), a known subject token (404), the right scope (403)', async () => {
    for (const body of [{}, { actorId: sam, subjectTokenId: 'sbt_x' }, { subjectToken: '' }, { user: sam }]) {
      const res = await end(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect((await end({ subjectTokenId: 'sbt_unknown' })).status).toBe(404);
    expect((await end({ subjectToken: 'sub_unknown' })).status).toBe(404);
    const reader = await managementToken(t, ['audit:read']);
    expect((await end({ actorId: sam }, reader)).status).toBe(403);
  });
});
