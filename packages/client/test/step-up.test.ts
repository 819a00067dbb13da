/**
 * RFC 9470 step-up in the client: `signIn({ acrValues, maxAge })` sends `acr_values` / `max_age`, and
 * `stepUpChallenge()` reads a real API's 401 `insufficient_user_authentication` answer to
 * `client.fetch()` (Bearer and DPoP), and nothing else (E10).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, stepUpChallenge } from '../src/index.js';
import { startApi, type TestApi } from './helpers/api.js';
import { consoleOptions, signedInClient } from './helpers/sign-in.js';
import { ORDERS, startWorld, type World } from './helpers/world.js';

const MFA = 'urn:gatehouse:acr:mfa';
let world: World;
let stepUpApi: TestApi;
let plainApi: TestApi;

beforeAll(async () => {
  world = await startWorld();
  stepUpApi = await startApi(world.baseUrl, ORDERS, {}, undefined, { acrValues: [MFA], maxAge: 300 });
  plainApi = await startApi(world.baseUrl, ORDERS, {}, undefined, { scopes: 'write:orders' });
});
afterAll(async () => {
  await Promise.all([stepUpApi?.close(), plainApi?.close(), world?.close()]);
});

describe('signIn({ acrValues, maxAge })', () => {
  it('E10: sends acr_values (space-separated, in order) and max_age', async () => {
    const client = createClient(consoleOptions(world));
    const url = await client.signIn({ acrValues: [MFA, 'urn:gatehouse:acr:password'], maxAge: 300 });
    expect(url.searchParams.get('acr_values')).toBe(`${MFA} urn:gatehouse:acr:password`);
    expect(url.searchParams.get('max_age')).toBe('300');
    const single = await client.signIn({ acrValues: MFA, maxAge: 0 });
    expect(single.searchParams.get('acr_values')).toBe(MFA);
    expect(single.searchParams.get('max_age')).toBe('0');
  });

  it('sends neither when not asked', async () => {
    const url = await createClient(consoleOptions(world)).signIn();
    expect(url.searchParams.has('acr_values')).toBe(false);
    expect(url.searchParams.has('max_age')).toBe(false);
  });

  it.each([
    [{ acrValues: [] }, /acrValues/],
    [{ acrValues: '' }, /acrValues/],
    [{ acrValues: ['two words'] }, /acrValues/],
    [{ acrValues: [3] }, /acrValues/],
    [{ maxAge: -1 }, /maxAge/],
    [{ maxAge: 2.5 }, /maxAge/],
    [{ maxAge: '300' }, /maxAge/],
  ])('refuses %j with a TypeError naming the option', async (options, message) => {
    await expect(createClient(consoleOptions(world)).signIn(options as never)).rejects.toThrow(message);
  });
});

describe('stepUpChallenge()', () => {
  it('E10: reads acr_values and max_age from the API answer to client.fetch() (Bearer)', async () => {
    const client = await signedInClient(world);
    const res = await client.fetch(ORDERS, `${stepUpApi.url}/payments`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="insufficient_user_authentication"');
    expect(stepUpChallenge(res)).toEqual({ acrValues: [MFA], maxAge: 300 });
    // What signIn() takes, as it is.
    const url = await client.signIn(stepUpChallenge(res)!);
    expect(url.searchParams.get('acr_values')).toBe(MFA);
    expect(url.searchParams.get('max_age')).toBe('300');
  });

  it('E10: reads the challenge of a DPoP client (the error is in the DPoP challenge)', async () => {
    const client = await signedInClient(world, { dpop: true });
    const res = await client.fetch(ORDERS, `${stepUpApi.url}/payments`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(
      /^Bearer realm="api", DPoP realm="api", error="insufficient_user_authentication"/,
    );
    expect(stepUpChallenge(res)).toEqual({ acrValues: [MFA], maxAge: 300 });
  });

  it('docs/step-up.md: the client answers the challenge by signing in again with its values', async () => {
    const client = await signedInClient(world);
    const api = stepUpApi.url;
    const res = await client.fetch(ORDERS, `${api}/payments`, { method: 'POST' });
    const stepUp = stepUpChallenge(res);
    if (stepUp !== undefined) {
      // In a browser this navigates to the issuer, which asks for the password and a one-time code.
      const url = await client.signIn({ acrValues: stepUp.acrValues, maxAge: stepUp.maxAge });
      expect(url.searchParams.get('acr_values')).toBe(MFA);
    }
    expect(stepUp).toBeDefined();
  });

  it("E10: reads an answer fetched without client.fetch() too (the page's own fetch)", async () => {
    const client = await signedInClient(world);
    const token = await client.getAccessToken(ORDERS);
    const res = await fetch(`${stepUpApi.url}/payments`, { headers: { authorization: `Bearer ${token}` } });
    expect(stepUpChallenge(res)).toEqual({ acrValues: [MFA], maxAge: 300 });
  });

  it('is undefined for any other answer: 403 insufficient_scope, 401 invalid_token, no header', async () => {
    const client = await signedInClient(world);
    const forbidden = await client.fetch(ORDERS, `${plainApi.url}/orders`);
    expect(forbidden.status).toBe(403);
    expect(stepUpChallenge(forbidden)).toBeUndefined();
    const invalid = await fetch(`${stepUpApi.url}/payments`, {
      headers: { authorization: 'Bearer not-a-jwt' },
    });
    expect(invalid.status).toBe(401);
    expect(stepUpChallenge(invalid)).toBeUndefined();
    expect(stepUpChallenge(new Response('{}', { status: 401 }))).toBeUndefined();
    // A 403 carrying the error is not RFC 9470's answer.
    const challenge = `Bearer error="insufficient_user_authentication", acr_values="${MFA}"`;
    const wrongStatus = new Response('{}', { status: 403, headers: { 'www-authenticate': challenge } });
    expect(stepUpChallenge(wrongStatus)).toBeUndefined();
  });

  it('ignores a max_age that is not a whole number of seconds, and empty acr_values', () => {
    const answer = (params: string) =>
      new Response('{}', {
        status: 401,
        headers: { 'www-authenticate': `Bearer error="insufficient_user_authentication", ${params}` },
      });
    expect(stepUpChallenge(answer('max_age="-5", acr_values=""'))).toEqual({
      acrValues: undefined,
      maxAge: undefined,
    });
    expect(stepUpChallenge(answer('max_age=60'))).toEqual({ acrValues: undefined, maxAge: 60 });
    expect(stepUpChallenge(answer('max_age="1e3"'))?.maxAge).toBeUndefined();
  });
});
