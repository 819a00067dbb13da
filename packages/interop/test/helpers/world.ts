/**
 * The seed every file of the suite starts from: two API resources, a user role and a machine role, two
 * users (alice: a reader; sam: a support engineer with no role), and the applications a file asks for.
 */
import { PASSWORD } from './issuer.js';

/** The orders API's resource indicator (the suite's @gatehouse/express API). */
export const ORDERS = 'https://orders.example.com';
/** A second API resource (for clients that hold tokens for two resources). */
export const BILLING = 'https://billing.example.com';

/** A seeded application (the issuer's seed format). */
export interface SeedApplication {
  readonly name: string;
  readonly type: 'Traditional' | 'SPA' | 'Native' | 'MachineToMachine';
  readonly clientId: string;
  readonly clientSecret?: string;
  readonly redirectUris?: readonly string[];
  readonly postLogoutRedirectUris?: readonly string[];
  readonly tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post';
  readonly tokenExchangeEnabled?: boolean;
  readonly roles?: readonly string[];
}

/** The seed document: the common world plus `applications`. */
export function seedDocument(applications: readonly SeedApplication[]): Record<string, unknown> {
  return {
    resources: [
      { name: 'Orders', indicator: ORDERS, scopes: ['read:orders', 'write:orders'] },
      { name: 'Billing', indicator: BILLING, scopes: ['read:billing'] },
    ],
    roles: [
      {
        name: 'reader',
        type: 'User',
        scopes: [
          { resource: ORDERS, scope: 'read:orders' },
          { resource: BILLING, scope: 'read:billing' },
        ],
      },
      {
        name: 'orders-service',
        type: 'MachineToMachine',
        scopes: [{ resource: ORDERS, scope: 'read:orders' }],
      },
    ],
    users: [
      { username: 'alice', email: 'alice@example.com', password: PASSWORD, roles: ['reader'] },
      { username: 'sam', email: 'sam@example.com', password: PASSWORD },
    ],
    applications,
  };
}

/** A client secret of the issuer's minimum length (32), distinct per name. */
export function secretFor(name: string): string {
  return `${name}-secret-`.padEnd(44, 'x');
}

/**
 * The two applications a client library's file seeds: `{prefix}-web`, a confidential web application
 * redirecting to `redirectUri` (with `web`'s further settings), and `{prefix}-worker`, a
 * machine-to-machine application holding the orders-service role. `label` starts their names.
 */
export function webAndWorker(
  prefix: string,
  label: string,
  redirectUri: string,
  web: Partial<SeedApplication> = {},
): [SeedApplication, SeedApplication] {
  return [
    {
      name: `${label} web`,
      type: 'Traditional',
      clientId: `${prefix}-web`,
      clientSecret: secretFor(`${prefix}-web`),
      redirectUris: [redirectUri],
      ...web,
    },
    {
      name: `${label} worker`,
      type: 'MachineToMachine',
      clientId: `${prefix}-worker`,
      clientSecret: secretFor(`${prefix}-worker`),
      roles: ['orders-service'],
    },
  ];
}
