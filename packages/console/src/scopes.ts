/**
 * What the signed-in person may do, from the Management API scopes of their access token (no DOM, no
 * client: unit-tested in Node).
 */

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

/** Whether the session may read (`write` false) or change an area. */
export function can(session: { readonly scopes: ReadonlySet<string> }, area: Area, write = false): boolean {
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
