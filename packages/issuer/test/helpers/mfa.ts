/**
 * Sign-ins through `web-app` (seeded by `loadWorld`) with the step-up pages over HTTP: start an
 * authorization request with any parameters, post the password, enrol or enter a TOTP code, redeem
 * the code. A code is accepted once per time step and user (±1 step of drift), so a user signs in at
 * the mfa level at most twice within one 30 s step: give each test its own users.
 */
import { Secret, TOTP } from 'otpauth';
import { expect } from 'vitest';
import { DEFAULTS } from '../../src/config/defaults.js';
import { Agent, type AgentResponse, authorizeUrl, codeOf, hiddenField, pkce, tokenRequest } from './agent.js';
import { ORDERS, PASSWORD, REDIRECT, SECRETS } from './fixtures.js';
import type { TestIssuer } from './issuer.js';
import { payloadOf } from './jwt.js';

export const WEB = Object.freeze({ clientId: 'web-app', clientSecret: SECRETS.web });

/** The action of the page's (first) form. */
export const actionOf = (page: AgentResponse, baseUrl: string) =>
  new URL(/<form method="post" action="([^"]+)"/.exec(page.text)![1]!, baseUrl).href;

/** The Base32 key an enrolment page shows (grouped by four for typing). */
export const keyOf = (page: AgentResponse) =>
  /<code id="totp-key">([A-Z2-7 ]+)<\/code>/.exec(page.text)![1]!.replaceAll(' ', '');

/** The TOTP code of `key` at `timestamp` (ms). */
export const codeFor = (key: string, timestamp = Date.now()) =>
  TOTP.generate({ secret: Secret.fromBase32(key), timestamp, period: DEFAULTS.totp.period });

/** Options of {@link authorize}. */
export interface AuthorizeOptions {
  /** Default `openid read:orders`. */
  readonly scope?: string;
  /** Default the orders API; `null` for none (OpenID scopes only: an opaque access token). */
  readonly resource?: string | null;
}

/** Start an authorization request with `extra` parameters; returns the page (or redirect) it stops at. */
export async function authorize(
  t: TestIssuer,
  agent: Agent,
  extra: Record<string, string> = {},
  options: AuthorizeOptions = {},
): Promise<{ page: AgentResponse; verifier: string; resource: string | null }> {
  const { verifier, challenge } = pkce();
  const resource = options.resource === undefined ? ORDERS : options.resource;
  const url = authorizeUrl({
    baseUrl: t.baseUrl,
    clientId: WEB.clientId,
    redirectUri: REDIRECT,
    scope: options.scope ?? 'openid read:orders',
    ...(resource === null ? {} : { resource }),
    codeChallenge: challenge,
    extra,
  });
  return { page: await agent.follow(await agent.get(url), REDIRECT), verifier, resource };
}

/** Post the password on a sign-in page; follows redirects up to the client. */
export async function submitPassword(
  t: TestIssuer,
  agent: Agent,
  page: AgentResponse,
  identifier: string,
): Promise<AgentResponse> {
  expect(page.text).toContain('name="identifier"');
  const posted = await agent.post(actionOf(page, t.baseUrl), {
    csrf: hiddenField(page.text, 'csrf'),
    identifier,
    password: PASSWORD,
  });
  return agent.follow(posted, REDIRECT);
}

/** Post a code on a code (or enrolment) page; follows redirects up to the client. */
export async function submitCode(
  t: TestIssuer,
  agent: Agent,
  page: AgentResponse,
  code: string,
): Promise<AgentResponse> {
  const posted = await agent.post(actionOf(page, t.baseUrl), {
    csrf: hiddenField(page.text, 'csrf'),
    step: hiddenField(page.text, 'step'),
    code,
  });
  return agent.follow(posted, REDIRECT);
}

/** The tokens of a redirect to the client, and the claims of its JWTs (`access` is `{}` when opaque). */
export interface Redeemed {
  readonly tokens: Awaited<ReturnType<typeof tokenRequest>>['body'];
  readonly access: ReturnType<typeof payloadOf>;
  readonly id: ReturnType<typeof payloadOf>;
}

/** Redeem the redirect's code for `resource` (`null`: none). */
export async function redeem(
  t: TestIssuer,
  redirect: AgentResponse,
  verifier: string,
  resource: string | null = ORDERS,
): Promise<Redeemed> {
  expect(redirect.location?.startsWith(REDIRECT), `redirected to the client: ${redirect.status}`).toBe(true);
  const res = await tokenRequest(
    t.baseUrl,
    {
      grant_type: 'authorization_code',
      code: codeOf(redirect),
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      ...(resource === null ? {} : { resource }),
    },
    WEB,
  );
  expect(res.status).toBe(200);
  const token = String(res.body.access_token);
  return {
    tokens: res.body,
    access: token.split('.').length === 3 ? payloadOf(token) : {},
    id: payloadOf(res.body.id_token),
  };
}

/**
 * A complete mfa sign-in (`acr_values` naming the mfa level) of `username`, who has no authenticator
 * yet: the enrolment page, then its first code. Resolves to the key and the redeemed tokens.
 */
export async function enrolMfa(
  t: TestIssuer,
  username: string,
  options: AuthorizeOptions = {},
): Promise<Redeemed & { key: string }> {
  const agent = new Agent();
  const { page, verifier, resource } = await authorize(
    t,
    agent,
    { acr_values: 'urn:gatehouse:acr:mfa' },
    options,
  );
  const enrol = await submitPassword(t, agent, page, username);
  expect(enrol.text).toContain('otpauth://totp/');
  const key = keyOf(enrol);
  return { key, ...(await redeem(t, await submitCode(t, agent, enrol, codeFor(key)), verifier, resource)) };
}
