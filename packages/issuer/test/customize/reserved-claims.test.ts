/**
 * Catalogue F9 end to end over HTTP, on SQLite and PostgreSQL: a custom-claims function that returns
 * every reserved claim (RESERVED_CLAIMS: `acr`, `amr`, `auth_time`, `roles`, `cnf`, `act`, `client_id`,
 * `scope` and the registered claims) changes none of them in the tokens of any grant — it fails closed
 * like the claims reserved before (dropped, the issuer's value kept, the names logged without values),
 * so a password sign-in never comes out as `urn:gatehouse:acr:mfa` and never passes a step-up check
 * (probe D6); its other claims are still added.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createVerifier, InsufficientUserAuthenticationError } from '@gatehouse/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESERVED_CLAIMS } from '../../src/index.js';
import { ACR_VALUES } from '../../src/interactions/step-up.js';
import { Agent, codeOf, pkce, signIn, tokenRequest } from '../helpers/agent.js';
import { DRIVERS } from '../helpers/drivers.js';
import {
  ACCESS_TOKEN_TYPE,
  exchange,
  loadExchangeWorld,
  mintSubjectToken,
  signedInTokens,
  userId,
} from '../helpers/exchange.js';
import { BILLING, loadWorld, ORDERS, PASSWORD, REDIRECT, SECRETS } from '../helpers/fixtures.js';
import { adminToken, startIssuer, type TestIssuer } from '../helpers/issuer.js';
import { payloadOf } from '../helpers/jwt.js';

/** The claims the catalogue names, and RFC 7519's registered claim names. */
const NAMED = ['acr', 'amr', 'auth_time', 'roles', 'cnf', 'act', 'client_id', 'scope'];
const REGISTERED = ['iss', 'sub', 'aud', 'exp', 'nbf', 'iat', 'jti'];
/** Protocol claims no access token of this issuer carries. */
const NEVER = [
  'amr',
  'may_act',
  'cnf',
  'azp',
  'nonce',
  'at_hash',
  'c_hash',
  's_hash',
  'sid',
  'events',
  'sub_jwk',
];

/** A function returning a forged value for every reserved claim, and two claims of its own. */
function writeForger(): string {
  const forged: Record<string, unknown> = Object.fromEntries(
    RESERVED_CLAIMS.map((name) => [name, `forged-${name}`]),
  );
  Object.assign(forged, {
    acr: ACR_VALUES.mfa,
    amr: ['pwd', 'otp'],
    roles: ['forged-superuser'],
    act: { sub: 'forged-actor' },
    may_act: { sub: 'forged-actor' },
    cnf: { jkt: 'forged-thumbprint' },
    exp: 4_102_444_800,
    nbf: 1,
    iat: 1,
  });
  const path = join(mkdtempSync(join(tmpdir(), 'gatehouse-reserved-')), 'claims.mjs');
  writeFileSync(
    path,
    `const FORGED = ${JSON.stringify(forged)};
export async function getCustomJwtClaims() {
  // A sign-in that looks fresh, whenever it happened.
  return { ...FORGED, auth_time: Math.floor(Date.now() / 1000), tenant: 'acme', email: 'custom@example.com' };
}
`,
  );
  return path;
}

describe.each(DRIVERS)('%s', (driver) => {
  let t: TestIssuer;
  let alice: string;
  const web = { clientId: 'web-app', clientSecret: SECRETS.web };
  const verifier = () => createVerifier({ issuer: `${t.baseUrl}/oidc`, audience: ORDERS, strict: true });

  beforeAll(async () => {
    t = await startIssuer(driver, { customJwtClaims: { module: writeForger(), workers: 1 } });
    await loadWorld(t);
    await loadExchangeWorld(t);
    await t.issuer.seed({ resources: [{ name: 'Orders', indicator: ORDERS, rolesClaim: true }] });
    alice = await userId(t, 'alice');
  });
  afterAll(() => t.close());

  /** Claims of this grant the function's values must not have touched. */
  function expectUntouched(claims: ReturnType<typeof payloadOf>) {
    expect(claims).toMatchObject({ tenant: 'acme', email: 'custom@example.com' });
    expect(claims.iss).toBe(`${t.baseUrl}/oidc`);
    expect(claims.exp).toBeLessThan(Date.now() / 1000 + 86_400);
    expect(claims.iat).toBeGreaterThan(Date.now() / 1000 - 60);
    expect(claims.jti).not.toBe('forged-jti');
    for (const name of NEVER) expect(claims, name).not.toHaveProperty(name);
    expect(JSON.stringify(claims)).not.toContain('forged-');
  }

  it('F9: the reserved list is one frozen list holding the claims the catalogue names and the registered ones', () => {
    expect(Object.isFrozen(RESERVED_CLAIMS)).toBe(true);
    expect(() => (RESERVED_CLAIMS as string[]).push('tenant')).toThrow(TypeError);
    for (const name of [...NAMED, ...REGISTERED, ...NEVER]) expect(RESERVED_CLAIMS).toContain(name);
    expect(new Set(RESERVED_CLAIMS).size).toBe(RESERVED_CLAIMS.length);
  });

  it('F9: a password sign-in keeps its acr and auth_time (code and refresh), and never passes a step-up check', async () => {
    const before = Math.floor(Date.now() / 1000);
    const { verifier: codeVerifier, challenge } = pkce();
    const res = await signIn(new Agent(), {
      baseUrl: t.baseUrl,
      clientId: 'web-app',
      redirectUri: REDIRECT,
      scope: 'openid offline_access read:orders',
      resource: ORDERS,
      identifier: 'alice',
      password: PASSWORD,
      codeChallenge: challenge,
      extra: { prompt: 'consent' },
    });
    const signedIn = Math.ceil(Date.now() / 1000);
    const tokens = await tokenRequest(
      t.baseUrl,
      {
        grant_type: 'authorization_code',
        code: codeOf(res),
        code_verifier: codeVerifier,
        redirect_uri: REDIRECT,
        resource: ORDERS,
      },
      web,
    );
    expect(tokens.status).toBe(200);
    // Later than the sign-in: a forged auth_time ("now") would be newer than it.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const refreshed = await tokenRequest(
      t.baseUrl,
      { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token, resource: ORDERS },
      web,
    );
    expect(refreshed.status).toBe(200);
    for (const token of [tokens.body.access_token, refreshed.body.access_token]) {
      const claims = payloadOf(token);
      expectUntouched(claims);
      expect(claims).toMatchObject({
        sub: alice,
        aud: ORDERS,
        client_id: 'web-app',
        scope: 'read:orders',
        acr: ACR_VALUES.password,
        roles: ['reader'],
      });
      expect(claims.auth_time).toBeGreaterThanOrEqual(before - 1);
      expect(claims.auth_time).toBeLessThanOrEqual(signedIn);
      const refused = await verifier()
        .verify(token, { acrValues: [ACR_VALUES.mfa] })
        .catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(InsufficientUserAuthenticationError);
      expect(refused).toMatchObject({ reason: 'acr_not_accepted' });
    }
    // The ID token is the issuer's alone.
    const idToken = payloadOf(tokens.body.id_token);
    expect(idToken).not.toHaveProperty('tenant');
    expect(idToken.acr).not.toBe(ACR_VALUES.mfa);
  });

  it('F9: client credentials gain no acr, auth_time or roles (a resource without the roles claim), nor any other reserved claim', async () => {
    const res = await tokenRequest(
      t.baseUrl,
      { grant_type: 'client_credentials', resource: BILLING },
      { clientId: 'worker', clientSecret: SECRETS.worker },
    );
    expect(res.status).toBe(200);
    const claims = payloadOf(res.body.access_token);
    expectUntouched(claims);
    expect(claims).toMatchObject({ sub: 'worker', client_id: 'worker', aud: BILLING });
    for (const name of ['acr', 'auth_time', 'roles', 'act']) expect(claims, name).not.toHaveProperty(name);
  });

  it("F9: a token exchange keeps the verified actor and the subject's roles, and gains no acr or auth_time", async () => {
    const admin = await adminToken(t);
    const sam = await userId(t, 'sam');
    const res = await exchange(t, {
      subject_token: await mintSubjectToken(t, admin, { userId: alice }),
      subject_token_type: ACCESS_TOKEN_TYPE,
      actor_token: (await signedInTokens(t, 'sam')).access_token,
      actor_token_type: ACCESS_TOKEN_TYPE,
      resource: ORDERS,
      scope: 'read:orders',
    });
    expect(res.status).toBe(200);
    const claims = payloadOf(res.body.access_token);
    expectUntouched(claims);
    expect(claims).toMatchObject({
      sub: alice,
      act: { sub: sam },
      client_id: 'te-web',
      scope: 'read:orders',
      roles: ['reader'],
    });
    for (const name of ['acr', 'auth_time']) expect(claims, name).not.toHaveProperty(name);
  });

  it('F9: each drop is logged with the claim names, never their values', () => {
    const lines = t.logs.lines.filter((line) => line.includes('"custom_claims.reserved"'));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      const entry = JSON.parse(line) as { level: number; claims: string[] };
      expect(entry.level).toBe(40);
      expect([...entry.claims].sort()).toEqual([...RESERVED_CLAIMS].sort());
    }
    expect(t.logs.text).not.toContain('forged-');
  });
});
