/**
 * The signed-in administrator: @gatehouse/client (authorization code + PKCE, public client) signs in
 * through the issuer's own pages and holds one access token for the Management API. The refresh and
 * ID tokens live in this tab's sessionStorage (gone when the tab closes); access tokens stay in memory.
 * What the page shows follows the token's scopes; the API checks them again on every call.
 */
import { type Client, createClient } from '@gatehouse/client';

/** What `/console/config.json` holds. */
export interface PageConfig {
  readonly endpoint: string;
  readonly clientId: string;
  readonly redirectUri: string;
  readonly postLogoutRedirectUri: string;
  readonly managementApi: string;
  readonly basePath: string;
}

/** Every Management API scope the console may use; the issuer grants those the user's roles hold. */
export const MANAGEMENT_SCOPES = [
  'all',
  'users:read',
  'users:write',
  'applications:read',
  'applications:write',
  'resources:read',
  'resources:write',
  'roles:read',
  'roles:write',
  'keys:read',
  'keys:write',
  'audit:read',
] as const;

/** Areas of the console; each has a `:read` and a `:write` scope. */
export type Area = 'users' | 'applications' | 'resources' | 'roles' | 'keys' | 'audit';

/** A signed-in administrator. */
export interface Session {
  readonly config: PageConfig;
  readonly client: Client;
  readonly userId: string;
  readonly name: string;
  readonly scopes: ReadonlySet<string>;
}

/** Whether the session may read (`write` false) or change an area. */
export function can(session: Session, area: Area, write = false): boolean {
  const { scopes } = session;
  if (scopes.has('all') || scopes.has(`${area}:write`)) return true;
  return !write && scopes.has(`${area}:read`);
}

/** Whether the session may use the console at all (any Management API scope). */
export function isAdministrator(scopes: ReadonlySet<string>): boolean {
  return MANAGEMENT_SCOPES.some((scope) => scopes.has(scope));
}

/** The scopes of a JWT access token (read, not verified: the API verifies it). */
export function tokenScopes(token: string): Set<string> {
  const payload = token.split('.')[1] ?? '';
  const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
  const scope = (JSON.parse(json) as { scope?: unknown }).scope;
  return new Set(typeof scope === 'string' ? scope.split(' ').filter(Boolean) : []);
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
