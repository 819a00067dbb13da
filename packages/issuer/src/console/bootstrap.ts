/**
 * The console's part of the first-start bootstrap (idempotent, run on every start): two built-in user
 * roles on the Management API resource — {@link CONSOLE_ROLES}`.administrator` (scope `all`) and
 * `.viewer` (every `:read` scope) — and, while the console is enabled, its public `SPA` application
 * (`gatehouse-console`: PKCE, no secret, first party, redirect URI `{baseUrl}/console/callback`). The
 * redirect URIs follow the base URL when it changes; they, its type, its authentication and its
 * token-exchange switch are set here at every start and never through the Management API
 * (`management/ceiling.ts`).
 *
 * Who may use the console: a user holding one of these roles (or any user role granting Management
 * API scopes). Give one with the Management API (`POST /api/users/{id}/roles`) or a seed file
 * (`"roles": ["Gatehouse console administrator"]`).
 *
 * @module
 */
import { DEFAULTS } from '../config/defaults.js';
import { newId } from '../internal/ids.js';
import type { ResolvedConfig } from '../issuer-config.js';
import { MANAGEMENT_SCOPES } from '../management/scopes.js';
import type { ResourceRecord, Store } from '../storage/store.js';

/**
 * Names and scopes of the built-in console roles (user roles on the Management API resource).
 *
 * @example
 * ```ts
 * const role = await store.roles.findByName(CONSOLE_ROLES.administrator.name);
 * ```
 */
export const CONSOLE_ROLES = Object.freeze({
  administrator: Object.freeze({
    name: 'Gatehouse console administrator',
    description: 'Signs in to the admin console and changes everything the Management API can',
    scopes: Object.freeze(['all']),
  }),
  viewer: Object.freeze({
    name: 'Gatehouse console viewer',
    description: 'Signs in to the admin console read-only',
    scopes: Object.freeze(
      MANAGEMENT_SCOPES.map((scope) => scope.name).filter((name) => name.endsWith(':read')),
    ),
  }),
});

/**
 * The console's redirect URIs under a base URL.
 *
 * @example
 * ```ts
 * consoleUris('https://id.example.com').redirectUri; // 'https://id.example.com/console/callback'
 * ```
 */
export function consoleUris(baseUrl: string): { readonly redirectUri: string; readonly home: string } {
  return { redirectUri: `${baseUrl}/console/callback`, home: `${baseUrl}/console/` };
}

async function ensureRoles(store: Store, resource: ResourceRecord, now: number): Promise<void> {
  for (const role of Object.values(CONSOLE_ROLES)) {
    const existing =
      (await store.roles.findByName(role.name)) ??
      (await store.roles.create(
        { id: newId('role'), name: role.name, type: 'User', system: true, description: role.description },
        now,
      ));
    const scopes = await Promise.all(role.scopes.map((name) => store.resources.findScope(resource.id, name)));
    await store.roles.addScopes(
      existing.id,
      scopes.flatMap((scope) => (scope === undefined ? [] : [scope.id])),
    );
  }
}

async function ensureApplication(store: Store, config: ResolvedConfig, now: number): Promise<void> {
  const { redirectUri, home } = consoleUris(config.baseUrl);
  const id = DEFAULTS.console.clientId;
  const app = await store.applications.get(id);
  if (app === undefined) {
    await store.applications.create(
      {
        id,
        name: 'Gatehouse console',
        type: 'SPA',
        redirectUris: [redirectUri],
        postLogoutRedirectUris: [home],
        secretHash: null,
        tokenEndpointAuthMethod: 'none',
        firstParty: true,
      },
      now,
    );
  } else if (app.type !== 'SPA' || app.tokenEndpointAuthMethod !== 'none') {
    throw new Error(
      `An application with client id ${id} exists and is not the console's public SPA application; rename it or set console.enabled to false`,
    );
  } else if (
    app.redirectUris.length !== 1 ||
    app.redirectUris[0] !== redirectUri ||
    app.postLogoutRedirectUris.length !== 1 ||
    app.postLogoutRedirectUris[0] !== home ||
    app.tokenExchangeEnabled
  ) {
    // Its URIs follow the base URL, and nothing else may be added (catalogue F6): whatever a database
    // holds from before (an older issuer let the Management API change them) is put back.
    await store.applications.update(
      id,
      { redirectUris: [redirectUri], postLogoutRedirectUris: [home], tokenExchangeEnabled: false },
      now,
    );
  }
}

/**
 * Create (or keep) the console roles and, while the console is enabled, its application.
 *
 * @example
 * ```ts
 * await ensureConsole(store, config, managementResource, Math.floor(Date.now() / 1000));
 * ```
 */
export async function ensureConsole(
  store: Store,
  config: ResolvedConfig,
  resource: ResourceRecord,
  now: number,
): Promise<void> {
  await ensureRoles(store, resource, now);
  if (config.console.enabled) await ensureApplication(store, config, now);
}
