/**
 * Catalogue F10 end to end over HTTP, on SQLite and PostgreSQL: tokens of grants where no user
 * authenticated in the request — client credentials, token exchange (impersonation, with or without an
 * actor token, and personal access tokens) — carry no `acr` and no `auth_time`, also when the actor
 * signed in with a second factor a moment ago, and never pass a step-up check of @gatehouse/core; a
 * user's own sign-in (the authorization code) does.
 */
import { createVerifier, InsufficientUserAuthenticationError } from '@gatehouse/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACR_VALUES } from '../../src/interactions/step-up.js';
import { tokenRequest } from '../helpers/agent.js';
import { DRIVERS } from '../helpers/drivers.js';
import {
  ACCESS_TOKEN_TYPE,
  exchange,
  loadExchangeWorld,
  mintSubjectToken,
  PAT_TOKEN_TYPE,
  userId,
} from '../helpers/exchange.js';
import { loadWorld, ORDERS, PASSWORD, SECRETS } from '../helpers/fixtures.js';
import { adminToken, api, startIssuer, type TestIssuer } from '../helpers/issuer.js';
import { payloadOf } from '../helpers/jwt.js';
import { enrolMfa } from '../helpers/mfa.js';

const STEP_UPS = [
  [{ acrValues: [ACR_VALUES.password, ACR_VALUES.mfa] }, 'acr_not_accepted'],
  [{ acrValues: [ACR_VALUES.mfa] }, 'acr_not_accepted'],
  [{ maxAge: 3_600 }, 'auth_time_too_old'],
] as const;

describe.each(DRIVERS)('%s', (driver) => {
  let t: TestIssuer;
  let admin: string;
  let alice: string;
  const verifier = () => createVerifier({ issuer: `${t.baseUrl}/oidc`, audience: ORDERS, strict: true });

  beforeAll(async () => {
    t = await startIssuer(driver);
    await loadWorld(t);
    await loadExchangeWorld(t);
    await t.issuer.seed({
      users: [
        { username: 'ursula', password: PASSWORD, roles: ['reader'] },
        { username: 'victor', password: PASSWORD, roles: ['reader'] },
      ],
    });
    admin = await adminToken(t);
    alice = await userId(t, 'alice');
  });
  afterAll(() => t.close());

  /** No sign-in claims, and every step-up requirement refused (delegated tokens allowed by the route). */
  async function expectNoSignIn(token: string) {
    const claims = payloadOf(token);
    expect(claims).not.toHaveProperty('acr');
    expect(claims).not.toHaveProperty('auth_time');
    expect(claims).not.toHaveProperty('amr');
    const auth = await verifier().verify(token, { allowDelegation: true });
    expect(auth.claims.acr).toBeUndefined();
    for (const [requirement, reason] of STEP_UPS) {
      const error = await verifier()
        .verify(token, { allowDelegation: true, ...requirement })
        .catch((err: unknown) => err);
      expect(error, JSON.stringify(requirement)).toBeInstanceOf(InsufficientUserAuthenticationError);
      expect(error).toMatchObject({ reason, status: 401 });
    }
  }

  it("F10: a user's own mfa sign-in carries acr and auth_time and passes the step-up check (the contrast)", async () => {
    const { access } = await enrolMfa(t, 'ursula');
    expect(access.acr).toBe(ACR_VALUES.mfa);
    const token = (await enrolMfa(t, 'victor')).tokens.access_token as string;
    await expect(
      verifier().verify(token, { acrValues: [ACR_VALUES.mfa], maxAge: 3_600 }),
    ).resolves.toBeDefined();
  });

  it('F10: a client-credentials token carries no acr or auth_time and passes no step-up check', async () => {
    const res = await tokenRequest(
      t.baseUrl,
      { grant_type: 'client_credentials', resource: ORDERS },
      { clientId: 'worker', clientSecret: SECRETS.worker },
    );
    expect(res.status).toBe(200);
    await expectNoSignIn(res.body.access_token);
  });

  it('F10: an impersonation token carries no acr or auth_time — not even when the actor has just signed in with a second factor — and passes no step-up check', async () => {
    // dave acts with the access token of an mfa sign-in (OpenID scopes only: an actor token).
    const actor = await enrolMfa(t, 'dave', { scope: 'openid', resource: null });
    expect(actor.id.acr).toBe(ACR_VALUES.mfa);
    const withActor: Record<string, string> = {
      actor_token: actor.tokens.access_token,
      actor_token_type: ACCESS_TOKEN_TYPE,
    };
    for (const extra of [withActor, {}]) {
      const res = await exchange(t, {
        subject_token: await mintSubjectToken(t, admin, { userId: alice }),
        subject_token_type: ACCESS_TOKEN_TYPE,
        resource: ORDERS,
        scope: 'read:orders',
        ...extra,
      });
      expect(res.status).toBe(200);
      expect(payloadOf(res.body.access_token).sub).toBe(alice);
      await expectNoSignIn(res.body.access_token);
    }
  });

  it('F10: a token exchanged for a personal access token carries no acr or auth_time', async () => {
    const pat = await api(t, admin, 'POST', `/users/${alice}/personal-access-tokens`, {
      name: 'cli',
      scopes: ['read:orders'],
    });
    expect(pat.status).toBe(201);
    const res = await exchange(t, {
      subject_token: pat.body.value,
      subject_token_type: PAT_TOKEN_TYPE,
      resource: ORDERS,
      scope: 'read:orders',
    });
    expect(res.status).toBe(200);
    await expectNoSignIn(res.body.access_token);
  });
});
