/**
 * openid-client (panva) as the suite's files use it against the CLI-started issuer: discovery of a
 * confidential client (HTTP Basic, plain http allowed on loopback only because the suite's issuer is),
 * and authorization code + PKCE through the real sign-in page in Chromium.
 */
import * as client from 'openid-client';
import type { Browser } from 'playwright-core';
import { signInOnPage } from './browser.js';
import { secretFor } from './world.js';

/** Discover `issuer` (its identifier, `{baseUrl}/oidc`) for the seeded client `clientId` (secret: `secretFor`). */
export function discover(issuer: string, clientId: string): Promise<client.Configuration> {
  return client.discovery(
    new URL(issuer),
    clientId,
    undefined,
    client.ClientSecretBasic(secretFor(clientId)),
    { execute: [client.allowInsecureRequests] },
  );
}

/** Where {@link authorizeOnPage} signs in, and what it asks for. */
export interface AuthorizeOptions {
  /** The issuer's base URL (its sign-in page is `{issuerBase}/interaction/…`). */
  readonly issuerBase: string;
  readonly redirectUri: string;
  readonly username: string;
  /** Parameters of the authorization request (scope, resource, prompt …). */
  readonly parameters: Record<string, string>;
}

/**
 * Authorization code + PKCE (S256, with `state`) of `config` for `username` through the sign-in page,
 * in a browser context of its own: resolves to the callback URL the browser was sent to, the PKCE
 * verifier and the state, for `client.authorizationCodeGrant`.
 */
export async function authorizeOnPage(
  browser: Browser,
  config: client.Configuration,
  options: AuthorizeOptions,
): Promise<{ callbackUrl: URL; verifier: string; state: string }> {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: options.redirectUri,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    ...options.parameters,
  });
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(url.href);
    await signInOnPage(page, options.issuerBase, options.username, options.redirectUri);
    return { callbackUrl: new URL(page.url()), verifier, state };
  } finally {
    await context.close();
  }
}

/**
 * {@link authorizeOnPage}, then the code redeemed at the token endpoint, naming the same `resource` as
 * the authorization request when it named one; `grant` carries openid-client's further options (DPoP).
 */
export async function signInWithCode(
  browser: Browser,
  config: client.Configuration,
  options: AuthorizeOptions,
  grant?: client.DPoPOptions,
): Promise<client.TokenEndpointResponse & client.TokenEndpointResponseHelpers> {
  const { callbackUrl, verifier, state } = await authorizeOnPage(browser, config, options);
  const { resource } = options.parameters;
  return client.authorizationCodeGrant(
    config,
    callbackUrl,
    { pkceCodeVerifier: verifier, expectedState: state },
    resource === undefined ? undefined : { resource },
    grant,
  );
}
