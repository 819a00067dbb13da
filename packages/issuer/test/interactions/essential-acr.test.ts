/**
 * Catalogue F11 over real HTTP, on SQLite and PostgreSQL: a sign-in that asks for an essential `acr`
 * (`claims={"id_token":{"acr":{"essential":true,…}}}`, OIDC Core §5.5.1.1) is stepped up — the
 * password, then a TOTP code (enrolled on the page when the user has none) — or refused
 * (`unmet_authentication_requirements` when no offered level is named, `login_required` with
 * `prompt=none`); it is never answered with a weaker `acr`. `acr_values` stays a wish (§3.1.2.1):
 * honoured for the levels the issuer offers, and the tokens always say which level was reached.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/config/defaults.js';
import { ACR_VALUES, SUPPORTED_ACR_VALUES } from '../../src/interactions/step-up.js';
import { Agent, type AgentResponse } from '../helpers/agent.js';
import { DRIVERS } from '../helpers/drivers.js';
import { loadWorld, PASSWORD, REDIRECT } from '../helpers/fixtures.js';
import { startIssuer, type TestIssuer } from '../helpers/issuer.js';
import { authorize, codeFor, enrolMfa, keyOf, redeem, submitCode, submitPassword } from '../helpers/mfa.js';

const { password, mfa } = ACR_VALUES;
const claims = (acr: unknown) => JSON.stringify({ id_token: { acr } });

/** The error parameters of a redirect to the client. */
function errorOf(res: AgentResponse): { error: string | null; description: string | null } {
  expect(res.location?.startsWith(REDIRECT), `redirected to the client: ${res.status}`).toBe(true);
  const params = new URL(res.location!).searchParams;
  expect(params.get('code')).toBeNull();
  return { error: params.get('error'), description: params.get('error_description') };
}

describe.each(DRIVERS)('%s', (driver) => {
  let t: TestIssuer;

  beforeAll(async () => {
    t = await startIssuer(driver);
    await loadWorld(t);
    await t.issuer.seed({
      users: ['gina', 'hank', 'ivy', 'jon', 'kim'].map((username) => ({
        username,
        password: PASSWORD,
        roles: ['reader'],
      })),
    });
  });
  afterAll(() => t.close());

  /** A user signed in at the password level in `agent`'s session. */
  async function passwordSession(agent: Agent, username: string) {
    const first = await authorize(t, agent);
    const { access } = await redeem(t, await submitPassword(t, agent, first.page, username), first.verifier);
    expect(access.acr).toBe(password);
  }

  it('F11: the discovery document says the claims parameter is supported, next to the levels', async () => {
    const doc = (await (await fetch(`${t.baseUrl}/oidc/.well-known/openid-configuration`)).json()) as Record<
      string,
      unknown
    >;
    expect(doc.claims_parameter_supported).toBe(true);
    expect(doc.acr_values_supported).toEqual([...SUPPORTED_ACR_VALUES]);
  });

  it('F11: an essential acr (mfa) is stepped up: a user without an authenticator enrols after the password, and both tokens say mfa', async () => {
    const agent = new Agent();
    const { page, verifier } = await authorize(t, agent, {
      claims: claims({ essential: true, value: mfa }),
    });
    const enrol = await submitPassword(t, agent, page, 'gina');
    // No redirect to the client after the password alone: the code step comes first.
    expect(enrol.status).toBe(200);
    expect(enrol.location).toBeUndefined();
    expect(enrol.text).toContain('otpauth://totp/');
    const { access, id } = await redeem(
      t,
      await submitCode(t, agent, enrol, codeFor(keyOf(enrol))),
      verifier,
    );
    expect(id.acr).toBe(mfa);
    expect(access.acr).toBe(mfa);
    expect(typeof access.auth_time).toBe('number');
  });

  it('F11: a password session asked for an essential mfa (value, or values with an unknown level) signs in again and enters a code; acr_values=password cannot lower it', async () => {
    const { key } = await enrolMfa(t, 'hank');
    const agent = new Agent();
    await passwordSession(agent, 'hank');
    const { page, verifier } = await authorize(t, agent, {
      claims: claims({ essential: true, values: ['urn:other:acr:hardware-key', mfa] }),
      acr_values: password,
    });
    // The session is at the password level: no code is issued for it.
    expect(page.location).toBeUndefined();
    const codePage = await submitPassword(t, agent, page, 'hank');
    expect(codePage.location).toBeUndefined();
    expect(codePage.text).toContain('Enter your code');
    expect(codePage.text).not.toContain('otpauth://');
    // The enrolment used the current step's code: the next step's is accepted (within the window).
    const next = codeFor(key, Date.now() + DEFAULTS.totp.period * 1000);
    const { access, id } = await redeem(t, await submitCode(t, agent, codePage, next), verifier);
    expect([id.acr, access.acr]).toEqual([mfa, mfa]);
    // Now at mfa, the same essential request (value form) passes without a prompt.
    const again = await authorize(t, agent, { claims: claims({ essential: true, value: mfa }) });
    expect((await redeem(t, again.page, again.verifier)).access.acr).toBe(mfa);
  });

  it('F11: an essential acr naming no level the issuer offers is refused at once (unmet_authentication_requirements), also next to acr_values', async () => {
    for (const extra of [
      { claims: claims({ essential: true, value: 'urn:other:acr:hardware-key' }) } as Record<string, string>,
      { claims: claims({ essential: true, values: ['urn:a', 'urn:b'] }), acr_values: mfa },
    ]) {
      const agent = new Agent();
      const { page } = await authorize(t, agent, extra);
      expect(errorOf(page)).toEqual({
        error: 'unmet_authentication_requirements',
        description: `none of the essential acr values can be met; this issuer offers ${SUPPORTED_ACR_VALUES.join(' ')}`,
      });
    }
    // The same refusal for a signed-in session: no sign-in page, no code.
    const agent = new Agent();
    await passwordSession(agent, 'ivy');
    const { page } = await authorize(t, agent, {
      claims: claims({ essential: true, value: 'urn:other:acr:hardware-key' }),
    });
    expect(errorOf(page).error).toBe('unmet_authentication_requirements');
  });

  it('F11: prompt=none with a password session and an essential mfa → login_required, never a password-level code', async () => {
    const agent = new Agent();
    await passwordSession(agent, 'jon');
    const { page } = await authorize(t, agent, {
      claims: claims({ essential: true, value: mfa }),
      prompt: 'none',
    });
    expect(errorOf(page).error).toBe('login_required');
  });

  it('F11: a claims parameter asking for other claims, or malformed, is refused with invalid_request at the redirect URI', async () => {
    for (const value of [
      JSON.stringify({ userinfo: { email: { essential: true } } }),
      JSON.stringify({ id_token: { email: null } }),
      claims({ essential: 'yes', value: mfa }),
      'not json',
    ]) {
      const { page } = await authorize(t, new Agent(), { claims: value });
      expect(errorOf(page).error, value).toBe('invalid_request');
    }
  });

  it('F11: acr_values naming only levels the issuer does not offer is a wish (OIDC Core §3.1.2.1): the sign-in is at password, and the tokens say so', async () => {
    const agent = new Agent();
    const { page, verifier } = await authorize(t, agent, { acr_values: 'urn:other:acr:hardware-key' });
    const { access, id } = await redeem(t, await submitPassword(t, agent, page, 'kim'), verifier);
    expect([id.acr, access.acr]).toEqual([password, password]);
  });
});
