/**
 * Catalogue B51: run every flow with logs captured at the most verbose level, then search the log
 * lines for every token, code, verifier, secret, password, cookie and Authorization value → 0 hits.
 * Catalogue D30: the same for DPoP flows — every proof sent, the members of every DPoP key (public and
 * private), the nonces handed out, and the nonce secret.
 */
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../src/config/defaults.js';
import { Agent, codeOf, pkce, signIn, tokenRequest } from './helpers/agent.js';
import { dpopClient, dpopKey, dpopSignIn, manualKey, manualProof, postWithProof } from './helpers/dpop.js';
import { DRIVERS } from './helpers/drivers.js';
import {
  ACCESS_TOKEN_TYPE,
  EXCHANGE_SECRET,
  exchange,
  loadExchangeWorld,
  PAT_TOKEN_TYPE,
  signedInTokens,
  TOKEN_EXCHANGE,
  userId,
} from './helpers/exchange.js';
import { loadWorld, ORDERS, PASSWORD, REDIRECT, SECRETS } from './helpers/fixtures.js';
import { adminToken, api, startIssuer, type TestIssuer } from './helpers/issuer.js';

describe.each(DRIVERS)('%s', (driver) => {
  let t: TestIssuer;
  const secrets = new Set<string>();
  const keep = (...values: Array<string | undefined>) => {
    for (const value of values) if (typeof value === 'string' && value.length >= 8) secrets.add(value);
  };

  beforeAll(async () => {
    t = await startIssuer(driver, { log: { level: 'trace' } });
    await loadWorld(t);
    await loadExchangeWorld(t);
  });
  afterAll(() => t.close());

  describe('logs (B51)', () => {
    it('contain no credential of any flow', async () => {
      keep(t.admin.clientSecret, PASSWORD, ...Object.values(SECRETS));
      const web = { clientId: 'web-app', clientSecret: SECRETS.web };
      keep(Buffer.from(`web-app:${SECRETS.web}`).toString('base64'));

      // Management API: token, created secrets, password set, rotation.
      const admin = await adminToken(t);
      keep(admin);
      const created = await api(t, admin, 'POST', '/applications', {
        name: 'Logged',
        type: 'MachineToMachine',
      });
      keep(created.body.clientSecret);
      const rotated = await api(t, admin, 'POST', `/applications/${created.body.id}/secret`);
      keep(rotated.body.clientSecret);
      const user = await api(t, admin, 'POST', '/users', {
        username: 'logged',
        password: 'logged-password-1',
      });
      keep('logged-password-1');
      await api(t, admin, 'PUT', `/users/${user.body.id}/password`, { password: 'logged-password-2' });
      keep('logged-password-2');
      await api(t, admin, 'POST', '/signing-keys/rotate');
      await api(t, `${admin}x`, 'GET', '/users');

      // Client credentials, good and bad.
      const cc = await tokenRequest(
        t.baseUrl,
        { grant_type: 'client_credentials', resource: ORDERS },
        { clientId: 'worker', clientSecret: SECRETS.worker },
      );
      keep(cc.body.access_token);
      await tokenRequest(
        t.baseUrl,
        { grant_type: 'client_credentials', resource: ORDERS },
        { clientId: 'worker', clientSecret: 'wrong-secret-value-123' },
      );
      keep('wrong-secret-value-123');

      // Sign-in (a failed attempt first), code, refresh, userinfo, introspection, revocation, replay.
      const agent = new Agent();
      const failed = await signIn(new Agent(), {
        baseUrl: t.baseUrl,
        clientId: 'web-app',
        redirectUri: REDIRECT,
        scope: 'openid',
        identifier: 'alice',
        password: 'bad-password-xyz',
        codeChallenge: pkce().challenge,
      });
      expect(failed.status).toBe(401);
      keep('bad-password-xyz');
      const { verifier, challenge } = pkce();
      keep(verifier, challenge);
      const res = await signIn(agent, {
        baseUrl: t.baseUrl,
        clientId: 'web-app',
        redirectUri: REDIRECT,
        scope: 'openid offline_access read:orders',
        resource: ORDERS,
        identifier: 'alice',
        password: PASSWORD,
        codeChallenge: challenge,
        extra: { prompt: 'consent', state: 'state-value-123', nonce: 'nonce-value-123' },
      });
      keep(...agent.cookies.values());
      const code = codeOf(res);
      keep(code);
      const tokens = await tokenRequest(
        t.baseUrl,
        { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT },
        web,
      );
      expect(tokens.status).toBe(200);
      keep(tokens.body.access_token, tokens.body.refresh_token, tokens.body.id_token);
      await fetch(`${t.baseUrl}/oidc/me`, {
        headers: { authorization: `Bearer ${tokens.body.access_token}` },
      });
      const refreshed = await tokenRequest(
        t.baseUrl,
        { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token, resource: ORDERS },
        web,
      );
      keep(refreshed.body.access_token, refreshed.body.refresh_token);
      await tokenRequest(
        t.baseUrl,
        { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT },
        web,
      );
      await fetch(`${t.baseUrl}/oidc/token/introspection`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`web-app:${SECRETS.web}`).toString('base64')}`,
        },
        body: new URLSearchParams({ token: refreshed.body.refresh_token }),
      });
      await fetch(`${t.baseUrl}/oidc/token/revocation`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`web-app:${SECRETS.web}`).toString('base64')}`,
        },
        body: new URLSearchParams({ token: refreshed.body.refresh_token }),
      });
      await agent.get(`${t.baseUrl}/oidc/session/end?id_token_hint=${tokens.body.id_token}`);

      // Impersonation: subject tokens, actor tokens, impersonation tokens, PATs, failures and replays.
      const alice = await userId(t, 'alice');
      const subject = await api(t, admin, 'POST', '/subject-tokens', {
        userId: alice,
        context: { ticketId: 'T-51' },
      });
      keep(subject.body.subjectToken);
      const actorTokens = await signedInTokens(t, 'sam');
      keep(actorTokens.access_token, actorTokens.id_token);
      const impersonated = await exchange(t, {
        subject_token: subject.body.subjectToken,
        subject_token_type: ACCESS_TOKEN_TYPE,
        actor_token: actorTokens.access_token,
        actor_token_type: ACCESS_TOKEN_TYPE,
        resource: ORDERS,
        scope: 'read:orders',
      });
      expect(impersonated.status).toBe(200);
      keep(impersonated.body.access_token);
      const replay = await exchange(t, {
        subject_token: subject.body.subjectToken,
        subject_token_type: ACCESS_TOKEN_TYPE,
        actor_token: actorTokens.id_token,
        actor_token_type: ACCESS_TOKEN_TYPE,
        resource: ORDERS,
      });
      expect(replay.status).toBe(400);
      await exchange(t, {
        subject_token: 'sub_guessed-value-123',
        subject_token_type: ACCESS_TOKEN_TYPE,
        resource: ORDERS,
      });
      keep('sub_guessed-value-123');
      const pat = await api(t, admin, 'POST', `/users/${alice}/personal-access-tokens`, { name: 'logged' });
      keep(pat.body.value);
      const fromPat = await exchange(t, {
        subject_token: pat.body.value,
        subject_token_type: PAT_TOKEN_TYPE,
        resource: ORDERS,
      });
      expect(fromPat.status).toBe(200);
      keep(fromPat.body.access_token);
      await api(t, admin, 'DELETE', `/users/${alice}/personal-access-tokens/${pat.body.id}`);
      await exchange(t, {
        subject_token: pat.body.value,
        subject_token_type: ACCESS_TOKEN_TYPE,
        resource: ORDERS,
      });
      await exchange(t, {
        subject_token: pat.body.value,
        subject_token_type: PAT_TOKEN_TYPE,
        resource: ORDERS,
      });
      await api(t, pat.body.value, 'GET', '/users');
      await api(t, subject.body.subjectToken, 'GET', '/users');
      expect(t.logs.text).toContain('"event":"audit"');

      expect(t.logs.lines.length).toBeGreaterThan(30);
      expect(secrets.size).toBeGreaterThan(20);
      const leaks = [...secrets].filter((value) => t.logs.text.includes(value));
      expect(leaks.map((leak) => t.logs.lines.find((line) => line.includes(leak)))).toEqual([]);
      // Query strings never reach the log, so state and nonce do not either.
      expect(t.logs.text).not.toContain('state-value-123');
      expect(t.logs.text).not.toContain('nonce-value-123');
    });
  });

  describe('logs (D30)', () => {
    it('D30: contain no DPoP proof, DPoP key member, nonce or nonce secret', async () => {
      const dpopSecrets = new Set<string>();
      const hold = (...values: Array<string | null | undefined>) => {
        for (const value of values)
          if (typeof value === 'string' && value.length >= 8) dpopSecrets.add(value);
      };
      const stored = await t.issuer.store.settings.get(DEFAULTS.dpop.nonceSecretSetting);
      expect(stored).toBeDefined();
      hold(
        stored,
        Buffer.from(stored!, 'base64url').toString('hex'),
        Buffer.from(stored!, 'base64url').toString('base64'),
      );
      const admin = await adminToken(t);
      const before = t.logs.lines.length;

      // Sign-in, refresh and token exchange with openid-client and a DPoP key; an exchange by a thief.
      const spa = await dpopClient(t.baseUrl, 'spa-app');
      const key = await dpopKey(spa);
      const publicJwk = await crypto.subtle.exportKey('jwk', key.keyPair.publicKey);
      hold(publicJwk.x, publicJwk.y, key.jkt);
      const tokens = await dpopSignIn(spa, {
        baseUrl: t.baseUrl,
        username: 'alice',
        scope: 'openid offline_access read:orders',
        resource: ORDERS,
        handle: key.handle,
      });
      hold(tokens.access_token, tokens.refresh_token, tokens.id_token);
      const refreshed = await oidc.refreshTokenGrant(
        spa.config,
        tokens.refresh_token!,
        { resource: ORDERS },
        { DPoP: key.handle },
      );
      hold(refreshed.access_token, refreshed.refresh_token);
      const console_ = await dpopClient(t.baseUrl, 'te-web', EXCHANGE_SECRET);
      const engineer = await dpopKey(console_);
      const engineerJwk = await crypto.subtle.exportKey('jwk', engineer.keyPair.publicKey);
      hold(engineerJwk.x, engineerJwk.y, engineer.jkt);
      const actor = await dpopSignIn(console_, {
        baseUrl: t.baseUrl,
        username: 'sam',
        scope: 'openid',
        handle: engineer.handle,
      });
      hold(actor.access_token, actor.id_token);
      const alice = await userId(t, 'alice');
      const subject = await api(t, admin, 'POST', '/subject-tokens', { userId: alice });
      hold(subject.body.subjectToken);
      const params = {
        subject_token: subject.body.subjectToken,
        subject_token_type: ACCESS_TOKEN_TYPE,
        actor_token: actor.access_token,
        actor_token_type: ACCESS_TOKEN_TYPE,
        resource: ORDERS,
        scope: 'read:orders',
      };
      const thief = await dpopKey(console_);
      await expect(
        oidc.genericGrantRequest(console_.config, TOKEN_EXCHANGE, params, { DPoP: thief.handle }),
      ).rejects.toThrow();
      const impersonated = await oidc.genericGrantRequest(console_.config, TOKEN_EXCHANGE, params, {
        DPoP: engineer.handle,
      });
      hold(impersonated.access_token);

      // Hand-made proofs: private key members, a replay, a proof for another URL, garbage.
      const own = manualKey();
      const privateJwk = own.privateKey.export({ format: 'jwk' });
      hold(privateJwk.d, privateJwk.x, privateJwk.y);
      const credentials = { clientId: 'worker', clientSecret: SECRETS.worker };
      const form = { grant_type: 'client_credentials', resource: ORDERS };
      const proof = manualProof(own, { htm: 'POST', htu: `${t.baseUrl}/oidc/token` });
      const issued = await postWithProof(`${t.baseUrl}/oidc/token`, form, proof, credentials);
      expect(issued.status).toBe(200);
      hold(issued.body.access_token, issued.headers.get('dpop-nonce'));
      await postWithProof(`${t.baseUrl}/oidc/token`, form, proof, credentials);
      const wrongUrl = manualProof(own, { htm: 'POST', htu: 'https://elsewhere.example/token' });
      await postWithProof(`${t.baseUrl}/oidc/token`, form, wrongUrl, credentials);
      const withNonce = manualProof(own, {
        htm: 'POST',
        htu: `${t.baseUrl}/oidc/token`,
        nonce: 'made-up-nonce-value',
      });
      await postWithProof(`${t.baseUrl}/oidc/token`, form, withNonce, credentials);
      await postWithProof(`${t.baseUrl}/oidc/token`, form, `${proof}x`, credentials);
      hold(proof, wrongUrl, withNonce, 'made-up-nonce-value');
      await fetch(`${t.baseUrl}/oidc/me`, {
        headers: { authorization: `DPoP ${actor.access_token}`, dpop: proof },
      });
      for (const request of [...spa.sent, ...console_.sent]) {
        hold(request.dpop);
        for (const part of request.dpop?.split('.') ?? []) hold(part);
      }
      for (const part of proof.split('.')) hold(part);

      expect(t.logs.lines.length - before).toBeGreaterThan(10);
      expect(t.logs.text).toContain('invalid_dpop_proof');
      expect(dpopSecrets.size).toBeGreaterThan(30);
      const leaks = [...dpopSecrets].filter((value) => t.logs.text.includes(value));
      expect(leaks.map((leak) => t.logs.lines.find((line) => line.includes(leak)))).toEqual([]);
    });
  });
});
