/**
 * Step-up at the issuer (RFC 9470, catalogue E10): `acr_values` and `max_age` at /auth, the second
 * sign-in level (password plus a TOTP code, RFC 6238, enrolled on the sign-in page), `acr` and
 * `auth_time` in access tokens — and the new cases B87 (a code is accepted once), B88 (wrong codes are
 * throttled) and B89 (the TOTP secret is sealed at rest and never logged), on SQLite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/config/defaults.js';
import { CODE_MESSAGES } from '../../src/interactions/code-step.js';
import { ACR_VALUES } from '../../src/interactions/step-up.js';
import { escapeHtml } from '../../src/interactions/views/layout.js';
import { executorOf } from '../../src/storage/sql/index.js';
import { Agent, type AgentResponse, hiddenField } from '../helpers/agent.js';
import { DRIVERS } from '../helpers/drivers.js';
import { loadWorld, PASSWORD } from '../helpers/fixtures.js';
import { startIssuer, type TestIssuer } from '../helpers/issuer.js';
import * as mfa from '../helpers/mfa.js';

const { actionOf, codeFor, keyOf } = mfa;

describe.each(DRIVERS)('%s', (driver) => {
  let t: TestIssuer;

  beforeAll(async () => {
    t = await startIssuer(driver);
    await loadWorld(t);
  });
  afterAll(() => t.close());

  const authorize = (agent: Agent, extra: Record<string, string> = {}) => mfa.authorize(t, agent, extra);
  const password = (agent: Agent, page: AgentResponse, identifier = 'alice') =>
    mfa.submitPassword(t, agent, page, identifier);
  const submitCode = (agent: Agent, page: AgentResponse, code: string) =>
    mfa.submitCode(t, agent, page, code);
  /** Redeem the redirect's code for the orders API; resolves to the access and ID tokens' claims. */
  const accessClaims = (redirect: AgentResponse, verifier: string) => mfa.redeem(t, redirect, verifier);

  let enrolledKey = '';

  it('E10: the discovery document lists the two levels', async () => {
    const doc = (await (await fetch(`${t.baseUrl}/oidc/.well-known/openid-configuration`)).json()) as {
      acr_values_supported?: string[];
    };
    expect(doc.acr_values_supported).toEqual([ACR_VALUES.password, ACR_VALUES.mfa]);
  });

  it('E10: a password sign-in puts acr (password) and auth_time in the access token', async () => {
    const agent = new Agent();
    const before = Math.floor(Date.now() / 1000);
    const { page, verifier } = await authorize(agent);
    const { access } = await accessClaims(await password(agent, page), verifier);
    expect(access.acr).toBe(ACR_VALUES.password);
    expect(access.auth_time).toBeGreaterThanOrEqual(before - 1);
    expect(access.auth_time).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
  });

  it('E10: acr_values=mfa enrols a TOTP factor on the sign-in page, then the access token says mfa', async () => {
    const agent = new Agent();
    const { page, verifier } = await authorize(agent, { acr_values: ACR_VALUES.mfa });
    const enrol = await password(agent, page);
    expect(enrol.status).toBe(200);
    expect(enrol.text).toContain('Set up your authenticator app');
    expect(enrol.text).toContain('otpauth://totp/');
    expect(enrol.headers.get('cache-control')).toBe('no-store');
    enrolledKey = keyOf(enrol);
    expect(enrolledKey).toMatch(/^[A-Z2-7]{32}$/);

    const wrong = await submitCode(agent, enrol, codeFor(enrolledKey, Date.now() - 3_600_000));
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain(escapeHtml(CODE_MESSAGES.wrongCode));
    // Still enrolling, with the same key: the app the user just set up keeps working.
    expect(keyOf(wrong)).toBe(enrolledKey);

    const { access, id } = await accessClaims(await submitCode(agent, wrong, codeFor(enrolledKey)), verifier);
    expect(access.acr).toBe(ACR_VALUES.mfa);
    expect(typeof access.auth_time).toBe('number');
    expect(id.acr).toBe(ACR_VALUES.mfa);
  });

  /** A complete mfa sign-in of a new user `username` (enrolment included); resolves to its key. */
  async function enrolled(username: string): Promise<string> {
    await t.issuer.seed({ users: [{ username, password: PASSWORD, roles: ['reader'] }] });
    return (await mfa.enrolMfa(t, username)).key;
  }

  it('E10: a password session asked for acr_values=mfa signs in again; an enrolled user only enters a code', async () => {
    const key = await enrolled('carol');
    const agent = new Agent();
    const first = await authorize(agent);
    await accessClaims(await password(agent, first.page, 'carol'), first.verifier);
    // The session is at password level: the mfa request must not pass silently.
    const { page, verifier } = await authorize(agent, { acr_values: ACR_VALUES.mfa });
    expect(page.location).toBeUndefined();
    const codePage = await password(agent, page, 'carol');
    expect(codePage.text).toContain('Enter your code');
    expect(codePage.text).not.toContain('otpauth://');
    // The next step's code (within the window): the enrolment used the current one.
    const next = codeFor(key, Date.now() + DEFAULTS.totp.period * 1000);
    const { access } = await accessClaims(await submitCode(agent, codePage, next), verifier);
    expect(access.acr).toBe(ACR_VALUES.mfa);
    // An mfa session answers a later mfa request without a prompt.
    const again = await authorize(agent, { acr_values: ACR_VALUES.mfa });
    expect((await accessClaims(again.page, again.verifier)).access.acr).toBe(ACR_VALUES.mfa);
  });

  it('E10: max_age is honoured: an old enough session signs in again, and auth_time moves', async () => {
    const agent = new Agent();
    const first = await authorize(agent);
    const firstAuth = (await accessClaims(await password(agent, first.page), first.verifier)).access
      .auth_time;
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const { page, verifier } = await authorize(agent, { max_age: '0' });
    expect(page.text).toContain('name="identifier"');
    const { access } = await accessClaims(await password(agent, page), verifier);
    expect(access.auth_time as number).toBeGreaterThan(firstAuth as number);
  });

  it('B87: a code is accepted once — the code that signed in cannot sign in again', async () => {
    const key = await enrolled('dave');
    const used = codeFor(key);
    const agent = new Agent();
    const { page } = await authorize(agent, { acr_values: ACR_VALUES.mfa });
    const replayed = await submitCode(agent, await password(agent, page, 'dave'), used);
    expect(replayed.status).toBe(401);
    expect(replayed.text).toContain(escapeHtml(CODE_MESSAGES.wrongCode));
  });

  it('B87: a forged password-step field, or one of another interaction, is refused', async () => {
    const agent = new Agent();
    const { page } = await authorize(agent, { acr_values: ACR_VALUES.mfa });
    const codePage = await password(agent, page);
    const forged = await agent.post(actionOf(codePage, t.baseUrl), {
      csrf: hiddenField(codePage.text, 'csrf'),
      step: `${Buffer.from(`usr_other.${Math.floor(Date.now() / 1000) + 60}`).toString('base64url')}.AAAA`,
      code: '123456',
    });
    expect(forged.status).toBe(403);
    const second = new Agent();
    const other = await authorize(second, { acr_values: ACR_VALUES.mfa });
    const otherPage = await password(second, other.page);
    const foreign = await second.post(actionOf(otherPage, t.baseUrl), {
      csrf: hiddenField(otherPage.text, 'csrf'),
      step: hiddenField(codePage.text, 'step'),
      code: '123456',
    });
    expect(foreign.status).toBe(403);
  });

  it('B88: wrong codes are throttled per user, with Retry-After', async () => {
    await t.issuer.seed({ users: [{ username: 'erin', password: PASSWORD, roles: ['reader'] }] });
    const agent = new Agent();
    const { page } = await authorize(agent, { acr_values: ACR_VALUES.mfa });
    let current = await password(agent, page, 'erin');
    const key = keyOf(current);
    const statuses: number[] = [];
    for (let i = 0; i <= DEFAULTS.totp.maxFailures; i++) {
      current = await submitCode(agent, current, codeFor(key, Date.now() - 3_600_000));
      statuses.push(current.status);
    }
    expect(statuses.slice(0, DEFAULTS.totp.maxFailures).every((s) => s === 401)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
    expect(Number(current.headers.get('retry-after'))).toBeGreaterThan(0);
    // Even the right code waits for the window to end.
    expect((await submitCode(agent, current, codeFor(key))).status).toBe(429);
  });

  it('B88: parallel guesses are all counted before any code is checked', async () => {
    await t.issuer.seed({ users: [{ username: 'frank', password: PASSWORD, roles: ['reader'] }] });
    const agent = new Agent();
    const { page } = await authorize(agent, { acr_values: ACR_VALUES.mfa });
    const codePage = await password(agent, page, 'frank');
    const guesses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => submitCode(agent, codePage, String(100000 + i))),
    );
    const statuses = guesses.map((res) => res.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(DEFAULTS.totp.maxFailures);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20 - DEFAULTS.totp.maxFailures);
  });

  it('B89: the TOTP secret is sealed at rest and never logged', async () => {
    const alice = (await t.issuer.store.users.findByLogin('alice'))!;
    const factor = (await t.issuer.store.totpFactors.get(alice.id))!;
    expect(factor.confirmed).toBe(true);
    expect(factor.secret).toMatch(/^v1\./);
    expect(factor.secret).not.toContain(enrolledKey);
    const db = executorOf(t.issuer.store);
    if (db !== undefined) {
      const rows = await db.many('SELECT * FROM totp_factors');
      expect(JSON.stringify(rows)).not.toContain(enrolledKey);
    }
    expect(t.logs.text).not.toContain(enrolledKey);
    expect(t.logs.text).toContain('"acr":"urn:gatehouse:acr:mfa"');
  });
});
