/**
 * A sign-in to the admin console asks an enrolled user for their TOTP code too (catalogue F20: "the
 * console asks for the password, and TOTP where enrolled, again"): after the password the console's
 * sign-in shows the code form and its tokens carry the mfa level; a console user without a factor
 * signs in with the password alone; and the same enrolled user signing in to another application
 * without asking for mfa is not asked for a code.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_ROLES } from '../../src/console/bootstrap.js';
import { ACR_VALUES } from '../../src/interactions/step-up.js';
import { Agent, authorizeUrl, codeOf, hiddenField, pkce, tokenRequest } from '../helpers/agent.js';
import { DRIVERS } from '../helpers/drivers.js';
import { loadWorld, PASSWORD } from '../helpers/fixtures.js';
import { startIssuer, type TestIssuer } from '../helpers/issuer.js';
import { payloadOf } from '../helpers/jwt.js';
import { actionOf, authorize, codeFor, enrolMfa, submitPassword } from '../helpers/mfa.js';

describe.each(DRIVERS)('%s', (driver) => {
  let t: TestIssuer;
  let key: string;

  beforeAll(async () => {
    t = await startIssuer(driver);
    await loadWorld(t);
    await t.issuer.seed({
      users: [
        { username: 'carla', password: PASSWORD, roles: [CONSOLE_ROLES.administrator.name] },
        { username: 'dan', password: PASSWORD, roles: [CONSOLE_ROLES.administrator.name] },
      ],
    });
    key = (await enrolMfa(t, 'carla')).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Start a console sign-in and post the password; the page or redirect it stops at. */
  async function consoleSignIn(agent: Agent, username: string) {
    const redirectUri = `${t.baseUrl}/console/callback`;
    const { verifier, challenge } = pkce();
    const url = authorizeUrl({
      baseUrl: t.baseUrl,
      clientId: 'gatehouse-console',
      redirectUri,
      scope: 'openid all',
      resource: `${t.baseUrl}/api`,
      codeChallenge: challenge,
    });
    const page = await agent.follow(await agent.get(url), redirectUri);
    const posted = await agent.post(actionOf(page, t.baseUrl), {
      csrf: hiddenField(page.text, 'csrf'),
      identifier: username,
      password: PASSWORD,
    });
    const redeem = async (redirect: Awaited<ReturnType<Agent['follow']>>) => {
      const tokens = await tokenRequest(t.baseUrl, {
        grant_type: 'authorization_code',
        client_id: 'gatehouse-console',
        code: codeOf(redirect),
        code_verifier: verifier,
        redirect_uri: redirectUri,
        resource: `${t.baseUrl}/api`,
      });
      expect(tokens.status).toBe(200);
      return payloadOf(String(tokens.body.access_token));
    };
    return { stop: await agent.follow(posted, redirectUri), redirectUri, redeem };
  }

  it('F20: an enrolled console user is asked for the code after the password; the token says mfa', async () => {
    const agent = new Agent();
    const { stop, redirectUri, redeem } = await consoleSignIn(agent, 'carla');
    expect(stop.location).toBeUndefined();
    expect(stop.text).toContain('name="code"');
    const posted = await agent.post(actionOf(stop, t.baseUrl), {
      csrf: hiddenField(stop.text, 'csrf'),
      step: hiddenField(stop.text, 'step'),
      // The enrolment used this time step's code; a code is accepted once: the next step's.
      code: codeFor(key, Date.now() + 30_000),
    });
    const redirect = await agent.follow(posted, redirectUri);
    expect(redirect.location?.startsWith(redirectUri)).toBe(true);
    expect((await redeem(redirect)).acr).toBe(ACR_VALUES.mfa);
  });

  it('F20: a console user without a factor signs in with the password alone', async () => {
    const { stop, redirectUri, redeem } = await consoleSignIn(new Agent(), 'dan');
    expect(stop.location?.startsWith(redirectUri)).toBe(true);
    expect((await redeem(stop)).acr).toBe(ACR_VALUES.password);
  });

  it('F20: the enrolled user signing in to another application (no mfa asked for) is not asked for a code', async () => {
    const agent = new Agent();
    const { page } = await authorize(t, agent);
    const stop = await submitPassword(t, agent, page, 'carla');
    expect(stop.text).not.toContain('name="code"');
    expect(stop.location).toBeDefined();
  });
});
