/** Make a console client for a world and sign it in by form posts. */
import { type Client, type ClientOptions, createClient } from '../../src/index.js';
import { FormAgent } from './form-sign-in.js';
import { BILLING, ORDERS, PASSWORD, REDIRECT, type World } from './world.js';

/** Options of the seeded public `console` application against `world`. */
export function consoleOptions(world: World, extra: Partial<ClientOptions> = {}): ClientOptions {
  return {
    endpoint: world.baseUrl,
    allowInsecureRequests: true,
    clientId: 'console',
    redirectUri: REDIRECT,
    resources: [ORDERS, BILLING],
    scopes: ['read:orders', 'read:billing'],
    ...extra,
  };
}

/** A client that has completed a sign-in as `username` (alice by default). */
export async function signedInClient(
  world: World,
  extra: Partial<ClientOptions> = {},
  username = 'alice',
  password = PASSWORD,
): Promise<Client> {
  const client = createClient(consoleOptions(world, extra));
  const url = await client.signIn();
  const callback = await new FormAgent().signIn(url, REDIRECT, username, password);
  await client.handleSignInCallback(callback);
  return client;
}
