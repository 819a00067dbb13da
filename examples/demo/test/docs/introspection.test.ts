import { createVerifier, isAuthError } from '@gatehouse/core';
import { createIssuer, type Issuer } from '@gatehouse/issuer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../../test/support/ports.js';

const ORDERS = 'https://api.example.com/orders';
const PAYMENTS = 'https://api.example.com/payments';
const WORKER_SECRET = 'worker-secret-0123456789abcdefghijklmnopqrs';
const API_SECRET = 'orders-api-secret-0123456789abcdefghijklmn';

let issuerServer: Issuer;
let baseUrl: string;

beforeAll(async () => {
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  issuerServer = await createIssuer({
    baseUrl,
    database: ':memory:',
    accessTokenFormat: 'opaque', // resource tokens are opaque: introspected, revocable at once
    log: { level: 'silent' },
  });
  await issuerServer.seed({
    resources: [
      { name: 'Orders', indicator: ORDERS, scopes: ['read:orders'] },
      { name: 'Payments', indicator: PAYMENTS, scopes: ['pay'] },
    ],
    roles: [
      {
        name: 'service',
        type: 'MachineToMachine',
        scopes: [
          { resource: ORDERS, scope: 'read:orders' },
          { resource: PAYMENTS, scope: 'pay' },
        ],
      },
    ],
    applications: [
      {
        name: 'Worker',
        type: 'MachineToMachine',
        clientId: 'worker',
        clientSecret: WORKER_SECRET,
        roles: ['service'],
      },
      { name: 'Orders API', type: 'MachineToMachine', clientId: 'orders-api', clientSecret: API_SECRET },
    ],
  });
  await issuerServer.listen(port, '127.0.0.1');
});
afterAll(() => issuerServer.close());

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

async function workerToken(resource: string): Promise<string> {
  const res = await fetch(`${baseUrl}/oidc/token`, {
    method: 'POST',
    headers: { authorization: basic('worker', WORKER_SECRET) },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource }),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

/** The first sample: an API that verifies JWTs locally and introspects anything else. */
function ordersVerifier(issuer: string, clientSecret: string) {
  const verifier = createVerifier({
    issuer, // e.g. 'https://id.example.com/oidc': the introspection_endpoint is read from its metadata
    audience: 'https://api.example.com/orders',
    introspection: {
      clientId: 'orders-api', // this API's own confidential client at the issuer
      clientSecret, // sent with HTTP Basic (client_secret_basic)
    },
  });
  return verifier;
}

/** The second sample: a route where a revocation must apply at the next request. */
function paymentsVerifier(issuer: string, clientSecret: string) {
  const payments = createVerifier({
    issuer,
    audience: 'https://api.example.com/payments',
    introspection: { clientId: 'orders-api', clientSecret, mode: 'always' }, // no answer is reused
  });
  return payments;
}

describe('docs: opaque tokens and revocation', () => {
  it('an opaque token is introspected and gives the usual AuthInfo', async () => {
    const verifier = ordersVerifier(`${baseUrl}/oidc`, API_SECRET);
    const token = await workerToken(ORDERS);
    expect(token).not.toContain('.');
    const auth = await verifier.verify(token, { scopes: 'read:orders' });
    expect(auth).toMatchObject({ clientId: 'worker', audience: [ORDERS], scopes: ['read:orders'] });
  });

  it('a token revoked at the issuer is refused at the next request in always mode', async () => {
    const payments = paymentsVerifier(`${baseUrl}/oidc`, API_SECRET);
    const token = await workerToken(PAYMENTS);
    await expect(payments.verify(token, { scopes: 'pay' })).resolves.toBeDefined();

    // The client that holds the token revokes it (RFC 7009).
    const revoked = await fetch(`${baseUrl}/oidc/token/revocation`, {
      method: 'POST',
      headers: { authorization: basic('worker', WORKER_SECRET) },
      body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
    });
    expect(revoked.status).toBe(200);

    const error = await payments.verify(token).catch((err: unknown) => err);
    expect(isAuthError(error) && [error.status, error.code, error.reason]).toEqual([
      401,
      'invalid_token',
      'inactive',
    ]);
  });
});
