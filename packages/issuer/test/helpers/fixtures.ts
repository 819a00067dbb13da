/**
 * A small world loaded through the seed path: two API resources, user and M2M roles, users, and one
 * application of each type.
 */
import type { TestIssuer } from './issuer.js';

export const ORDERS = 'https://orders.example.com';
export const BILLING = 'https://billing.example.com/api';
/** A redirect URI nobody listens on: tests read the redirect, they never follow it. */
export const REDIRECT = 'http://127.0.0.1:8976/callback';
export const PASSWORD = 'correct horse battery staple';
export const SECRETS = Object.freeze({
  web: 'web-secret-0123456789abcdefghijklmnopqrstuv',
  other: 'other-secret-0123456789abcdefghijklmnopqrstu',
  worker: 'worker-secret-0123456789abcdefghijklmnopqrs',
  third: 'third-secret-0123456789abcdefghijklmnopqrst',
  post: 'post-secret-0123456789abcdefghijklmnopqrstuv',
});

/** Load the world into a started issuer. */
export async function loadWorld(t: TestIssuer): Promise<void> {
  await t.issuer.seed({
    resources: [
      {
        name: 'Orders',
        indicator: ORDERS,
        scopes: ['read:orders', 'write:orders', { name: 'admin:orders', description: 'Administer' }],
      },
      { name: 'Billing', indicator: BILLING, accessTokenTtl: 600, scopes: ['read:billing'] },
    ],
    roles: [
      { name: 'reader', type: 'User', scopes: [{ resource: ORDERS, scope: 'read:orders' }] },
      { name: 'writer', type: 'User', scopes: [{ resource: ORDERS, scope: 'write:orders' }] },
      {
        name: 'orders-service',
        type: 'MachineToMachine',
        scopes: [
          { resource: ORDERS, scope: 'read:orders' },
          { resource: ORDERS, scope: 'write:orders' },
        ],
      },
    ],
    users: [
      { username: 'alice', email: 'alice@example.com', password: PASSWORD, roles: ['reader'] },
      { username: 'bob', email: 'bob@example.com', password: PASSWORD, suspended: true, roles: ['reader'] },
    ],
    applications: [
      {
        name: 'Web',
        type: 'Traditional',
        clientId: 'web-app',
        clientSecret: SECRETS.web,
        redirectUris: [REDIRECT],
      },
      {
        name: 'Other web',
        type: 'Traditional',
        clientId: 'other-app',
        clientSecret: SECRETS.other,
        redirectUris: [REDIRECT],
      },
      {
        name: 'Post web',
        type: 'Traditional',
        clientId: 'post-app',
        clientSecret: SECRETS.post,
        tokenEndpointAuthMethod: 'client_secret_post',
        redirectUris: [REDIRECT],
      },
      { name: 'SPA', type: 'SPA', clientId: 'spa-app', redirectUris: [REDIRECT] },
      {
        name: 'Worker',
        type: 'MachineToMachine',
        clientId: 'worker',
        clientSecret: SECRETS.worker,
        roles: ['orders-service'],
      },
      {
        name: 'Third party',
        type: 'Traditional',
        clientId: 'third-party',
        clientSecret: SECRETS.third,
        redirectUris: [REDIRECT],
        firstParty: false,
      },
    ],
  });
}
