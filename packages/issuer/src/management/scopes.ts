/**
 * The Management API's own scopes, registered on its resource (`{baseUrl}/api`) at bootstrap. `all`
 * grants every route; each area has a read and a write scope (write also allows reading).
 *
 * @module
 */

/**
 * Scope names and descriptions of the Management API resource.
 *
 * @example
 * ```ts
 * import { MANAGEMENT_SCOPES } from '@gatehouse/issuer';
 * console.log(MANAGEMENT_SCOPES.map((scope) => scope.name)); // ['all', 'users:read', …]
 * ```
 */
export const MANAGEMENT_SCOPES: ReadonlyArray<{ readonly name: string; readonly description: string }> =
  Object.freeze([
    { name: 'all', description: 'Every Management API operation' },
    { name: 'users:read', description: 'Read users and their roles' },
    {
      name: 'users:write',
      description: 'Create, change and delete users; set passwords; suspend; assign roles',
    },
    { name: 'applications:read', description: 'Read applications and their roles' },
    {
      name: 'applications:write',
      description: 'Create, change and delete applications; rotate secrets; assign roles',
    },
    { name: 'resources:read', description: 'Read API resources and scopes' },
    { name: 'resources:write', description: 'Create, change and delete API resources and scopes' },
    { name: 'roles:read', description: 'Read roles and their scopes' },
    { name: 'roles:write', description: 'Create, change and delete roles and their scopes' },
    { name: 'keys:read', description: 'List signing keys' },
    { name: 'keys:write', description: 'Rotate signing keys' },
    { name: 'subject-tokens:create', description: 'Mint subject tokens for impersonation (token exchange)' },
    {
      name: 'audit:read',
      description:
        'Read the audit trail: impersonation, personal access tokens, sign-in refusals and every Management API change',
    },
    { name: 'webhooks:read', description: 'Read webhook endpoints and their deliveries' },
    { name: 'webhooks:write', description: 'Register and delete webhook endpoints' },
  ]);

/**
 * The Management API scope names `scopes` amount to: each `<area>:write` also holds `<area>:read`
 * (every route that reads with one accepts the other). `all` is not expanded: it holds everything.
 *
 * @example
 * ```ts
 * impliedScopes(['users:write']); // Set { 'users:write', 'users:read' }
 * ```
 */
export function impliedScopes(scopes: Iterable<string>): Set<string> {
  const held = new Set<string>();
  for (const scope of scopes) {
    held.add(scope);
    if (scope.endsWith(':write')) held.add(`${scope.slice(0, -':write'.length)}:read`);
  }
  return held;
}
