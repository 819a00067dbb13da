import { createClient } from '@gatehouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PEOPLE } from '../src/seed.ts';
import { SignInError, signInHeadlessly } from '../src/sign-in.ts';
import type { World } from '../src/world.ts';
import { startTestWorld } from './helpers.ts';

let world: World;
beforeAll(async () => {
  world = await startTestWorld();
});
afterAll(() => world?.close());

const client = () =>
  createClient({
    endpoint: world.urls.issuer,
    allowInsecureRequests: true,
    clientId: world.consoleClientId,
    redirectUri: world.redirectUri,
    resources: [world.resources.orders],
    scopes: ['read:orders'],
  });

describe('signInHeadlessly', () => {
  it('signs in through the issuer’s form and returns the callback URL the client accepts', async () => {
    const c = client();
    const callback = await signInHeadlessly(
      await c.signIn(),
      world.redirectUri,
      'alice',
      PEOPLE.customer.password,
    );
    expect(callback.startsWith(`${world.redirectUri}?`)).toBe(true);
    expect(new URL(callback).searchParams.has('code')).toBe(true);
    expect((await c.handleSignInCallback(callback)).sub).toBe(world.users.customer);
  });

  it('throws a SignInError naming the user, not the password, when the password is wrong', async () => {
    const err = await signInHeadlessly(
      await client().signIn(),
      world.redirectUri,
      'alice',
      'not-the-password',
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SignInError);
    expect((err as Error).message).toBe('the issuer refused the password of alice');
  });

  it('throws a SignInError when the issuer shows an error page instead of the form', async () => {
    const url = await client().signIn();
    url.searchParams.set('redirect_uri', 'http://127.0.0.1:1/elsewhere');
    await expect(signInHeadlessly(url, world.redirectUri, 'alice', PEOPLE.customer.password)).rejects.toThrow(
      /^sign-in stopped at an unexpected page \(HTTP 400\)$/,
    );
  });
});
