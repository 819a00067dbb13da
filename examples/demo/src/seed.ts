/**
 * What the demo's issuer starts with: the orders API resource with `read:orders` / `write:orders`, the
 * support backend's resource with `impersonate:users`, roles, a customer and a support engineer, the
 * support console (an SPA enabled for token exchange) and the backend's machine-to-machine application,
 * allowed to mint subject tokens and nothing else; and an administrator of the issuer's admin console.
 *
 * The passwords are demo data, printed by the demo on purpose. The backend's client secret is generated
 * per run and never printed.
 *
 * @module
 */

import { CONSOLE_ROLES } from '@gatehouse/issuer';

/** The demo's people and the support case they work on. */
export const PEOPLE = Object.freeze({
  customer: Object.freeze({ username: 'alice', email: 'alice@example.com', password: 'alice-demo-password' }),
  engineer: Object.freeze({ username: 'sam', email: 'sam@example.com', password: 'sam-demo-password' }),
  /** Signs in to the issuer's admin console (`{issuer}/console`) with the built-in administrator role. */
  administrator: Object.freeze({
    username: 'admin',
    email: 'admin@example.com',
    password: 'admin-demo-password',
  }),
  backendClientId: 'support-backend',
  /** The orders API's own client: it asks the issuer whether an impersonation token is still active. */
  ordersApiClientId: 'orders-api',
  reason: 'customer cannot see last week’s order',
  ticketId: 'SUP-1234',
});

/** Client id of the support console (SPA). */
export const CONSOLE_CLIENT_ID = 'support-console';

/** The scopes of the demo's two APIs. */
export const SCOPES = Object.freeze({
  read: 'read:orders',
  write: 'write:orders',
  impersonate: 'impersonate:users',
  /** Management API scope of the backend's M2M application. */
  subjectTokens: 'subject-tokens:create',
});

/** Where things are, for the seed. */
export interface SeedInput {
  readonly resources: { readonly orders: string; readonly backend: string };
  /** The issuer's Management API resource indicator (`{baseUrl}/api`, built in). */
  readonly managementApi: string;
  /** Origin of the support console page: its redirect URIs live there. */
  readonly consoleOrigin: string;
  /** The backend's generated client secret (at least 32 characters). */
  readonly backendSecret: string;
  /** The orders API's generated client secret, for introspection (at least 32 characters). */
  readonly ordersApiSecret: string;
}

/**
 * The seed document (the same format as `gatehouse-issuer seed file.json`).
 *
 * @example
 * ```ts
 * await issuer.seed(
 *   demoSeed({ resources, managementApi: `${baseUrl}/api`, consoleOrigin: 'http://127.0.0.1:4200', backendSecret, ordersApiSecret }),
 * );
 * ```
 */
export function demoSeed({
  resources,
  managementApi,
  consoleOrigin,
  backendSecret,
  ordersApiSecret,
}: SeedInput) {
  return {
    resources: [
      {
        name: 'Orders API',
        indicator: resources.orders,
        scopes: [
          { name: SCOPES.read, description: 'Read orders' },
          { name: SCOPES.write, description: 'Place and cancel orders' },
        ],
      },
      {
        name: 'Support backend',
        indicator: resources.backend,
        scopes: [{ name: SCOPES.impersonate, description: 'Ask to act as a customer' }],
      },
    ],
    roles: [
      {
        name: 'customer',
        type: 'User' as const,
        description: 'Places and reads their own orders',
        scopes: [
          { resource: resources.orders, scope: SCOPES.read },
          { resource: resources.orders, scope: SCOPES.write },
        ],
      },
      {
        name: 'support-engineer',
        type: 'User' as const,
        description: 'May ask the support backend to impersonate customers',
        scopes: [{ resource: resources.backend, scope: SCOPES.impersonate }],
      },
      {
        name: 'subject-token-minter',
        type: 'MachineToMachine' as const,
        description: 'Mints subject tokens through the Management API, nothing else',
        scopes: [{ resource: managementApi, scope: SCOPES.subjectTokens }],
      },
    ],
    users: [
      { ...PEOPLE.customer, roles: ['customer'] },
      { ...PEOPLE.engineer, roles: ['support-engineer'] },
      { ...PEOPLE.administrator, roles: [CONSOLE_ROLES.administrator.name] },
    ],
    applications: [
      {
        name: 'Support console',
        type: 'SPA' as const,
        clientId: CONSOLE_CLIENT_ID,
        redirectUris: [`${consoleOrigin}/callback`],
        postLogoutRedirectUris: [`${consoleOrigin}/`],
        tokenExchangeEnabled: true,
      },
      {
        name: 'Support backend',
        type: 'MachineToMachine' as const,
        clientId: PEOPLE.backendClientId,
        clientSecret: backendSecret,
        roles: ['subject-token-minter'],
      },
      {
        // A resource server's client: it introspects impersonation tokens (no role, no scope).
        name: 'Orders API',
        type: 'MachineToMachine' as const,
        clientId: PEOPLE.ordersApiClientId,
        clientSecret: ordersApiSecret,
      },
    ],
  };
}
