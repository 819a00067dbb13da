/**
 * DPoP (RFC 9449) at the issuer's token endpoint, with a real DPoP client (openid-client 6) against
 * the real issuer over loopback, on both drivers. Catalogue D23, D25, D26 and D29 (D24 in
 * management/applications-dpop.test.ts; D27, D28 across two processes in e2e/dpop-instances.test.ts;
 * D30 in logs.test.ts).
 */
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/config/defaults.js';
import { tokenRequest } from '../helpers/agent.js';
import { type DpopClient, dpopClient, dpopKey, dpopSignIn, postWithProof } from '../helpers/dpop.js';
import { DRIVERS } from '../helpers/drivers.js';
import {
  ACCESS_TOKEN_TYPE,
  EXCHANGE_SECRET,
  loadExchangeWorld,
  mintSubjectToken,
  TOKEN_EXCHANGE,
  userId,
} from '../helpers/exchange.js';
import { loadWorld, ORDERS, SECRETS } from '../helpers/fixtures.js';
import { adminToken, startIssuer, type TestIssuer } from '../helpers/issuer.js';
import { payloadOf, signRs256 } from '../helpers/jwt.js';

/** The OAuth error of a rejected openid-client call. */
async function oauthError(promise: Promise<unknown>): Promise<{ error: string; description: string }> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof oidc.ResponseBodyError)
      return { error: err.error, description: err.error_description ?? '' };
    throw err;
  }
  throw new Error('the request succeeded');
}

describe.each(DRIVERS)('%s', (driver) => {
  let t: TestIssuer;
  let admin: string;
  let alice: string;
  let sam: string;
  let spa: DpopClient;
  let console_: DpopClient;
  let worker: DpopClient;

  beforeAll(async () => {
    t = await startIssuer(driver, { tokenExchange: { maxFailures: 1_000 } });
    await loadWorld(t);
    await loadExchangeWorld(t);
    admin = await adminToken(t);
    alice = await userId(t, 'alice');
    sam = await userId(t, 'sam');
    spa = await dpopClient(t.baseUrl, 'spa-app');
    console_ = await dpopClient(t.baseUrl, 'te-web', EXCHANGE_SECRET);
    worker = await dpopClient(t.baseUrl, 'worker', SECRETS.worker);
  });
  afterAll(() => t.close());

  const tokenEndpoint = () => `${t.baseUrl}/oidc/token`;
  const exchangeParams = (subjectToken: string, extra: Record<string, string> = {}) => ({
    subject_token: subjectToken,
    subject_token_type: ACCESS_TOKEN_TYPE,
    resource: ORDERS,
    scope: 'read:orders',
    ...extra,
  });

  describe('token requests (D23)', () => {
    it('D23: a valid proof gives token_type DPoP and an access token carrying cnf.jkt of the proof key', async () => {
      const key = await dpopKey(spa);
      const tokens = await dpopSignIn(spa, {
        baseUrl: t.baseUrl,
        username: 'alice',
        scope: 'openid offline_access read:orders',
        resource: ORDERS,
        handle: key.handle,
      });
      expect(tokens.token_type).toBe('dpop');
      const claims = payloadOf(tokens.access_token);
      expect(claims.aud).toBe(ORDERS);
      expect(claims.cnf).toEqual({ jkt: key.jkt });
      // The proof was really sent, with the key whose thumbprint the token carries.
      const header = JSON.parse(Buffer.from(spa.lastProof().split('.')[0]!, 'base64url').toString('utf8'));
      expect(header.typ).toBe('dpop+jwt');
      expect(header.jwk.d).toBeUndefined();
    });

    it('D23: without a proof the same sign-in gives a Bearer token without cnf', async () => {
      const tokens = await dpopSignIn(spa, {
        baseUrl: t.baseUrl,
        username: 'alice',
        scope: 'openid read:orders',
        resource: ORDERS,
      });
      expect(tokens.token_type).toBe('bearer');
      expect(payloadOf(tokens.access_token).cnf).toBeUndefined();
    });

    it('D23: a public client’s refresh token is bound: the same key refreshes, no key or another key → invalid_grant', async () => {
      const key = await dpopKey(spa);
      const tokens = await dpopSignIn(spa, {
        baseUrl: t.baseUrl,
        username: 'alice',
        scope: 'openid offline_access read:orders',
        resource: ORDERS,
        handle: key.handle,
      });
      const refreshToken = tokens.refresh_token!;
      expect(refreshToken).toBeDefined();

      // A thief holding the refresh token but not the key: no proof, or a proof of their own key.
      const bare = await tokenRequest(t.baseUrl, {
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: 'spa-app',
        resource: ORDERS,
      });
      expect(bare.status).toBe(400);
      expect(bare.body.error).toBe('invalid_grant');
      const thief = await dpopKey(spa);
      const stolen = await oauthError(
        oidc.refreshTokenGrant(spa.config, refreshToken, { resource: ORDERS }, { DPoP: thief.handle }),
      );
      expect(stolen.error).toBe('invalid_grant');

      // The owner still refreshes (the failed attempts did not use the token up), and stays bound.
      const refreshed = await oidc.refreshTokenGrant(
        spa.config,
        refreshToken,
        { resource: ORDERS },
        { DPoP: key.handle },
      );
      expect(refreshed.token_type).toBe('dpop');
      expect(payloadOf(refreshed.access_token).cnf).toEqual({ jkt: key.jkt });
      const again = await tokenRequest(t.baseUrl, {
        grant_type: 'refresh_token',
        refresh_token: refreshed.refresh_token!,
        client_id: 'spa-app',
      });
      expect(again.body.error).toBe('invalid_grant');
    });

    it('D23: client credentials with a proof give a bound token; a replayed proof → invalid_grant; a bad proof → invalid_dpop_proof', async () => {
      const key = await dpopKey(worker);
      const tokens = await oidc.clientCredentialsGrant(
        worker.config,
        { resource: ORDERS, scope: 'read:orders' },
        { DPoP: key.handle },
      );
      expect(tokens.token_type).toBe('dpop');
      expect(payloadOf(tokens.access_token).cnf).toEqual({ jkt: key.jkt });

      const credentials = { clientId: 'worker', clientSecret: SECRETS.worker };
      const form = { grant_type: 'client_credentials', resource: ORDERS, scope: 'read:orders' };
      const replayed = await postWithProof(tokenEndpoint(), form, worker.lastProof(), credentials);
      expect(replayed.status).toBe(400);
      // oidc-provider hides the reason of invalid_grant (error_detail): only the code is checked.
      expect(replayed.body.error).toBe('invalid_grant');

      const forged = await postWithProof(tokenEndpoint(), form, 'e30.e30.e30', credentials);
      expect(forged.status).toBe(400);
      expect(forged.body.error).toBe('invalid_dpop_proof');
      expect(forged.headers.get('www-authenticate')).toBeNull();
    });
  });

  describe('token exchange (D25, D26)', () => {
    it('D25: a proof at the exchange binds the impersonation token to its key (cnf.jkt, token_type DPoP)', async () => {
      const key = await dpopKey(console_);
      const subjectToken = await mintSubjectToken(t, admin, { userId: alice });
      const result = await oidc.genericGrantRequest(
        console_.config,
        TOKEN_EXCHANGE,
        exchangeParams(subjectToken),
        {
          DPoP: key.handle,
        },
      );
      expect(result.token_type).toBe('dpop');
      const claims = payloadOf(result.access_token);
      expect(claims.sub).toBe(alice);
      expect(claims.cnf).toEqual({ jkt: key.jkt });
      expect(result.issued_token_type).toBe(ACCESS_TOKEN_TYPE);
    });

    it('D25: without a proof the impersonation token is a Bearer token without cnf', async () => {
      const subjectToken = await mintSubjectToken(t, admin, { userId: alice });
      const result = await oidc.genericGrantRequest(
        console_.config,
        TOKEN_EXCHANGE,
        exchangeParams(subjectToken),
      );
      expect(result.token_type).toBe('bearer');
      expect(payloadOf(result.access_token).cnf).toBeUndefined();
    });

    it('D25: a bad or replayed proof is refused before the subject token is used', async () => {
      const credentials = { clientId: 'te-web', clientSecret: EXCHANGE_SECRET };
      const subjectToken = await mintSubjectToken(t, admin, { userId: alice });
      const form = { grant_type: TOKEN_EXCHANGE, ...exchangeParams(subjectToken) };
      const forged = await postWithProof(tokenEndpoint(), form, 'not-a-proof', credentials);
      expect(forged.status).toBe(400);
      expect(forged.body.error).toBe('invalid_dpop_proof');

      // A proof already used for another exchange.
      const key = await dpopKey(console_);
      const first = await mintSubjectToken(t, admin, { userId: alice });
      await oidc.genericGrantRequest(console_.config, TOKEN_EXCHANGE, exchangeParams(first), {
        DPoP: key.handle,
      });
      const replayed = await postWithProof(tokenEndpoint(), form, console_.lastProof(), credentials);
      expect(replayed.status).toBe(400);
      expect(replayed.body).toMatchObject({
        error: 'invalid_request',
        error_description: 'DPoP proof JWT Replay detected',
      });

      // A proof another client already used at the token endpoint: a proof is single-use for everyone.
      const other = await oidc.clientCredentialsGrant(
        worker.config,
        { resource: ORDERS },
        { DPoP: (await dpopKey(worker)).handle },
      );
      expect(other.token_type).toBe('dpop');
      const wrongClient = await postWithProof(tokenEndpoint(), form, worker.lastProof(), credentials);
      expect(wrongClient.status).toBe(400);

      // The subject token survived every refusal.
      const result = await oidc.genericGrantRequest(
        console_.config,
        TOKEN_EXCHANGE,
        exchangeParams(subjectToken),
        {
          DPoP: key.handle,
        },
      );
      expect(payloadOf(result.access_token).cnf).toEqual({ jkt: key.jkt });
    });

    it('D26: a DPoP-bound actor token is honoured only with a proof made with the same key', async () => {
      const engineer = await dpopKey(console_);
      const signedIn = await dpopSignIn(console_, {
        baseUrl: t.baseUrl,
        username: 'sam',
        scope: 'openid',
        handle: engineer.handle,
      });
      expect(signedIn.token_type).toBe('dpop');
      const actorToken = signedIn.access_token;
      const subjectToken = await mintSubjectToken(t, admin, { userId: alice, actorId: sam });
      const params = exchangeParams(subjectToken, {
        actor_token: actorToken,
        actor_token_type: ACCESS_TOKEN_TYPE,
      });

      // A thief with the actor token: no proof, or a proof made with their own key.
      const withoutProof = await oauthError(
        oidc.genericGrantRequest(console_.config, TOKEN_EXCHANGE, params),
      );
      expect(withoutProof.error).toBe('invalid_request');
      expect(withoutProof.description).toContain('bound to a DPoP key');
      const thief = await dpopKey(console_);
      const otherKey = await oauthError(
        oidc.genericGrantRequest(console_.config, TOKEN_EXCHANGE, params, { DPoP: thief.handle }),
      );
      expect(otherKey.error).toBe('invalid_request');
      expect(otherKey.description).toContain('another DPoP key');

      // The engineer, with their key: honoured, and the impersonation token is bound to that key.
      const result = await oidc.genericGrantRequest(console_.config, TOKEN_EXCHANGE, params, {
        DPoP: engineer.handle,
      });
      const claims = payloadOf(result.access_token);
      expect(claims.act).toEqual({ sub: sam });
      expect(claims.cnf).toEqual({ jkt: engineer.jkt });
    });

    it('D26: a key-bound JWT actor token is refused with invalid_request', async () => {
      const key = (await t.issuer.store.keys.list()).find((k) => k.status === 'active')!.privateJwk;
      const now = Math.floor(Date.now() / 1000);
      const engineer = await dpopKey(console_);
      const actorToken = signRs256(key, {
        iss: `${t.baseUrl}/oidc`,
        aud: `${t.baseUrl}/oidc`,
        sub: sam,
        client_id: 'te-web',
        jti: `j${Math.random()}`,
        iat: now,
        exp: now + 300,
        scope: 'openid',
        cnf: { jkt: engineer.jkt },
      });
      const subjectToken = await mintSubjectToken(t, admin, { userId: alice });
      const refused = await oauthError(
        oidc.genericGrantRequest(
          console_.config,
          TOKEN_EXCHANGE,
          exchangeParams(subjectToken, { actor_token: actorToken, actor_token_type: ACCESS_TOKEN_TYPE }),
          { DPoP: engineer.handle },
        ),
      );
      expect(refused.error).toBe('invalid_request');
      expect(refused.description).toContain('sender-constrained JWT actor tokens are not accepted');
    });
  });

  describe('introspection and discovery (D29)', () => {
    it('D29: introspection of a bound token returns its cnf; of an unbound one none', async () => {
      const key = await dpopKey(console_);
      const bound = await dpopSignIn(console_, {
        baseUrl: t.baseUrl,
        username: 'sam',
        scope: 'openid',
        handle: key.handle,
      });
      const introspected = await oidc.tokenIntrospection(console_.config, bound.access_token);
      expect(introspected.active).toBe(true);
      expect(introspected.cnf).toEqual({ jkt: key.jkt });
      expect(introspected.token_type).toBe('DPoP');

      const bearer = await dpopSignIn(console_, { baseUrl: t.baseUrl, username: 'sam', scope: 'openid' });
      const plain = await oidc.tokenIntrospection(console_.config, bearer.access_token);
      expect(plain.active).toBe(true);
      expect(plain.cnf).toBeUndefined();
    });

    it('D29: discovery advertises dpop_signing_alg_values_supported', async () => {
      const res = await fetch(`${t.baseUrl}/oidc/.well-known/openid-configuration`);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body.dpop_signing_alg_values_supported).toEqual([...DEFAULTS.dpop.signingAlgorithms]);
      expect(console_.config.serverMetadata().dpop_signing_alg_values_supported).toContain('ES256');
    });
  });
});
