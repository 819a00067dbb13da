/**
 * A console user's Management API token: sign in through the console's public application
 * (authorization code + PKCE, no secret) for the Management API resource, as the console does.
 */
import { Agent, codeOf, pkce, signIn, tokenRequest } from './agent.js';
import { PASSWORD } from './fixtures.js';

/** Sign `username` in through `clientId` (the console's by default) and return its Management API token. */
export async function consoleToken(
  t: { readonly baseUrl: string },
  username: string,
  options: { readonly clientId?: string; readonly password?: string; readonly scope?: string } = {},
): Promise<string> {
  const clientId = options.clientId ?? 'gatehouse-console';
  const redirectUri = `${t.baseUrl}/console/callback`;
  const resource = `${t.baseUrl}/api`;
  const { verifier, challenge } = pkce();
  const res = await signIn(new Agent(), {
    baseUrl: t.baseUrl,
    clientId,
    redirectUri,
    scope: options.scope ?? 'openid all users:read users:write keys:read keys:write audit:read',
    resource,
    identifier: username,
    password: options.password ?? PASSWORD,
    codeChallenge: challenge,
  });
  const tokens = await tokenRequest(t.baseUrl, {
    grant_type: 'authorization_code',
    client_id: clientId,
    code: codeOf(res),
    code_verifier: verifier,
    redirect_uri: redirectUri,
    resource,
  });
  if (tokens.status !== 200) throw new Error(`tokens: ${tokens.status} ${JSON.stringify(tokens.body)}`);
  return String(tokens.body.access_token);
}
