/**
 * The signed-in administrator: @gatehouse/client (authorization code + PKCE, public client) signs in
 * through the issuer's own pages and holds one access token for the Management API. The refresh and
 * ID tokens live in this tab's sessionStorage (gone when the tab closes); access tokens stay in memory.
 * What the page shows follows the token's scopes; the API checks them again on every call.
 */
import { type Client, createClient } from '@gatehouse/client';
import { MANAGEMENT_SCOPES } from './scopes.js';

export { type Area, can, isAdministrator, MANAGEMENT_SCOPES, tokenScopes } from './scopes.js';

/** What `/console/config.json` holds. */
export interface PageConfig {
  readonly endpoint: string;
  readonly clientId: string;
  readonly redirectUri: string;
  readonly postLogoutRedirectUri: string;
  readonly managementApi: string;
  readonly basePath: string;
}

/** A signed-in administrator. */
export interface Session {
  readonly config: PageConfig;
  readonly client: Client;
  readonly userId: string;
  readonly name: string;
  readonly scopes: ReadonlySet<string>;
  /** How the person signed in (`acr` of the ID token), when the issuer said. */
  readonly acr?: string | undefined;
}

/** Load the page configuration and build the client. */
export async function loadClient(): Promise<{ config: PageConfig; client: Client }> {
  const base = location.pathname.slice(0, location.pathname.indexOf('/console') + '/console'.length);
  const response = await fetch(`${base}/config.json`, { cache: 'no-store' });
  const config = (await response.json()) as PageConfig;
  const client = createClient({
    endpoint: config.endpoint,
    clientId: config.clientId,
    redirectUri: config.redirectUri,
    postLogoutRedirectUri: config.postLogoutRedirectUri,
    resources: [config.managementApi],
    scopes: ['profile', ...MANAGEMENT_SCOPES],
    storage: 'sessionStorage',
    allowInsecureRequests: new URL(config.endpoint).protocol === 'http:',
  });
  return { config, client };
}
