/**
 * The world the suites of several CLI-started issuer processes share (e2e/multi-instance,
 * e2e/dpop-instances, e2e/rolling-restart): an Orders API with `read:orders`, alice holding it through
 * a user role, a confidential web application enabled for token exchange and a machine-to-machine
 * worker holding it through a role — seeded by `gatehouse-issuer seed`, a process of its own as an
 * operator would run it — and the requests those suites make of it. Two instances of it behind the
 * loopback balancer: instance-pair.ts.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tokenRequest } from './agent.js';
import { ACCESS_TOKEN_TYPE, TOKEN_EXCHANGE } from './exchange.js';
import { ORDERS, PASSWORD, REDIRECT } from './fixtures.js';
import { runCliProcess } from './instances.js';

/** A confidential application's credentials. */
export interface Credentials {
  readonly clientId: string;
  readonly clientSecret: string;
}

/**
 * Rate limits for a load of thousands of requests of one client from one address in a minute: the
 * limits it needs, not the defaults (which a fast machine reached: 429s).
 */
export const LOAD_RATE_LIMITS: Readonly<Record<string, string>> = Object.freeze({
  GATEHOUSE_RATE_LIMITS_TOKEN_PER_CLIENT: '1000000',
  GATEHOUSE_RATE_LIMITS_TOKEN_PER_ADDRESS: '1000000',
  GATEHOUSE_RATE_LIMITS_MANAGEMENT_PER_CLIENT: '1000000',
});

/**
 * Write the seed file of the world into `dir` and run `gatehouse-issuer seed` on it with `env`.
 * `web.name` names the web application (`Web` unless given).
 */
export async function seedWorld(
  dir: string,
  baseUrl: string,
  env: Record<string, string>,
  apps: { readonly web: Credentials & { readonly name?: string }; readonly worker: Credentials },
): Promise<void> {
  const file = join(dir, 'seed.json');
  writeFileSync(
    file,
    JSON.stringify({
      resources: [{ name: 'Orders', indicator: ORDERS, scopes: ['read:orders'] }],
      roles: [
        { name: 'reader', type: 'User', scopes: [{ resource: ORDERS, scope: 'read:orders' }] },
        { name: 'service', type: 'MachineToMachine', scopes: [{ resource: ORDERS, scope: 'read:orders' }] },
      ],
      users: [{ username: 'alice', password: PASSWORD, roles: ['reader'] }],
      applications: [
        {
          name: apps.web.name ?? 'Web',
          type: 'Traditional',
          clientId: apps.web.clientId,
          clientSecret: apps.web.clientSecret,
          redirectUris: [REDIRECT],
          tokenExchangeEnabled: true,
        },
        {
          name: 'Worker',
          type: 'MachineToMachine',
          clientId: apps.worker.clientId,
          clientSecret: apps.worker.clientSecret,
          roles: ['service'],
        },
      ],
    }),
  );
  await runCliProcess(['seed', file, '--base-url', baseUrl], env);
}

/** `POST /api/subject-tokens` at `url` for `userId`, with an administrator's token. */
export function mintSubjectToken(url: string, adminToken: string, userId: string): Promise<Response> {
  return fetch(`${url}/api/subject-tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ userId }),
  });
}

/** Exchange a subject token at `url` for an Orders token, as the web application `web`. */
export function exchangeSubjectToken(url: string, subjectToken: string, web: Credentials) {
  return tokenRequest(
    url,
    {
      grant_type: TOKEN_EXCHANGE,
      subject_token: subjectToken,
      subject_token_type: ACCESS_TOKEN_TYPE,
      resource: ORDERS,
    },
    web,
  );
}

/** A client-credentials token of the worker for `read:orders` at `url`. */
export function workerToken(url: string, worker: Credentials) {
  return tokenRequest(
    url,
    { grant_type: 'client_credentials', resource: ORDERS, scope: 'read:orders' },
    worker,
  );
}
