/** Token-exchange helpers: mint subject tokens, sign users in for actor tokens, exchange. */
import { Agent, codeOf, pkce, signIn, tokenRequest } from './agent.js';
import { PASSWORD, REDIRECT, SECRETS } from './fixtures.js';
import { api, type TestIssuer } from './issuer.js';

export const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
export const PAT_TOKEN_TYPE = 'urn:gatehouse:params:oauth:token-type:personal_access_token';

/** Applications enabled for token exchange: a confidential one and a public (SPA) one. */
export const EXCHANGE_SECRET = 'exchange-secret-0123456789abcdefghijklmnopq';
export const teWeb = { clientId: 'te-web', clientSecret: EXCHANGE_SECRET };

/** Add the token-exchange applications and a support user (no roles) to a loaded world. */
export async function loadExchangeWorld(t: TestIssuer): Promise<void> {
  await t.issuer.seed({
    users: [
      { username: 'sam', email: 'sam@example.com', password: PASSWORD },
      { username: 'dave', email: 'dave@example.com', password: PASSWORD, roles: ['reader', 'writer'] },
    ],
    applications: [
      {
        name: 'Support console',
        type: 'Traditional',
        clientId: 'te-web',
        clientSecret: EXCHANGE_SECRET,
        redirectUris: [REDIRECT],
        tokenExchangeEnabled: true,
      },
      {
        name: 'Support SPA',
        type: 'SPA',
        clientId: 'te-spa',
        redirectUris: [REDIRECT],
        tokenExchangeEnabled: true,
      },
    ],
  });
}

/** The id of a user by username. */
export async function userId(t: TestIssuer, username: string): Promise<string> {
  return (await t.issuer.store.users.findByLogin(username))!.id;
}

/** Mint a subject token through the Management API. */
export async function mintSubjectToken(
  t: TestIssuer,
  admin: string,
  body: Record<string, unknown>,
): Promise<string> {
  const res = await api(t, admin, 'POST', '/subject-tokens', body);
  if (res.status !== 201) throw new Error(`subject token: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.subjectToken;
}

/** POST a token exchange, with HTTP Basic as te-web unless `credentials` is given (`null`: none). */
export function exchange(
  t: TestIssuer,
  params: Record<string, string | string[]>,
  credentials: { clientId: string; clientSecret: string } | null = teWeb,
) {
  return tokenRequest(t.baseUrl, { grant_type: TOKEN_EXCHANGE, ...params }, credentials ?? undefined);
}

/** Sign a user in through web-app (authorization code + PKCE) and return the token response. */
export async function signedInTokens(
  t: TestIssuer,
  username: string,
  scope = 'openid',
  resource?: string,
): Promise<Record<string, any>> {
  const { verifier, challenge } = pkce();
  const res = await signIn(new Agent(), {
    baseUrl: t.baseUrl,
    clientId: 'web-app',
    redirectUri: REDIRECT,
    scope,
    ...(resource === undefined ? {} : { resource }),
    identifier: username,
    password: PASSWORD,
    codeChallenge: challenge,
  });
  const tokens = await tokenRequest(
    t.baseUrl,
    {
      grant_type: 'authorization_code',
      code: codeOf(res),
      code_verifier: verifier,
      redirect_uri: REDIRECT,
      ...(resource === undefined ? {} : { resource }),
    },
    { clientId: 'web-app', clientSecret: SECRETS.web },
  );
  if (tokens.status !== 200)
    throw new Error(`sign-in tokens: ${tokens.status} ${JSON.stringify(tokens.body)}`);
  return tokens.body;
}
