/**
 * The page's flow (public/impersonate.js) in Node: a stand-in for @gatehouse/client records what it is
 * asked; the exchanged token is a real impersonation token from @gatehouse/testing; the backend and the
 * orders API are msw handlers, the orders API verifying the token with @gatehouse/core.
 */
import { createVerifier, isAuthError } from '@gatehouse/core';
import { createTestIssuer, onUnhandledRequest } from '@gatehouse/testing';
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { impersonate, readClaims, StepError } from '../public/impersonate.js';

const ORDERS = {
  resource: 'https://orders.gatehouse.test',
  url: 'https://orders-api.gatehouse.test',
  scopes: ['read:orders'],
};
const BACKEND = { resource: 'https://support-backend.gatehouse.test', url: 'https://backend.gatehouse.test' };
const REQUEST = { userId: 'usr_alice', reason: 'cannot see an order', ticketId: 'SUP-1234' };

const issuer = await createTestIssuer({ audience: ORDERS.resource });
const verifier = createVerifier({ ...issuer.verifierOptions(), fetch: issuer.fetch, strict: true });
const seen: { backend: Array<{ authorization: string | null; body: unknown }> } = { backend: [] };
let backendAnswer: { status: number; body: unknown } = {
  status: 201,
  body: { subjectToken: 'sub_x', expiresIn: 600 },
};

const server = setupServer(
  http.post(`${BACKEND.url}/impersonations`, async ({ request }) => {
    seen.backend.push({ authorization: request.headers.get('authorization'), body: await request.json() });
    return HttpResponse.json(backendAnswer.body as object, { status: backendAnswer.status });
  }),
  http.get(`${ORDERS.url}/orders`, async ({ request }) => {
    try {
      const auth = await verifier.authenticate(
        { headers: { authorization: request.headers.get('authorization') ?? undefined } },
        { scopes: 'read:orders' },
      );
      return HttpResponse.json({ orders: [], for: auth.subject, actor: auth.actor?.sub });
    } catch (err) {
      if (!isAuthError(err)) throw err;
      return HttpResponse.json(err.toJSON(), { status: err.status });
    }
  }),
);
beforeAll(() => server.listen({ onUnhandledRequest }));
afterEach(() => {
  seen.backend.length = 0;
  backendAnswer = { status: 201, body: { subjectToken: 'sub_x', expiresIn: 600 } };
});
afterAll(() => server.close());

/** A stand-in for the signed-in @gatehouse/client: tokens per resource, and an exchange that returns `exchanged`. */
function fakeClient(exchanged: string | Error) {
  const calls: unknown[] = [];
  return {
    calls,
    getAccessToken: async (resource?: string) =>
      resource === undefined ? 'engineer-openid-token' : `engineer-token-for-${resource}`,
    exchangeSubjectToken: async (request: unknown) => {
      calls.push(request);
      if (exchanged instanceof Error) throw exchanged;
      return { accessToken: exchanged, scopes: ['read:orders'], expiresAt: Date.now() + 60_000 };
    },
  };
}

describe('impersonate()', () => {
  it('asks the backend, exchanges with the engineer as actor, and calls the orders API as the customer', async () => {
    const token = await issuer.impersonation('usr_sam', { sub: 'usr_alice', scope: 'read:orders' });
    const client = fakeClient(token);
    const steps: Array<[string, unknown]> = [];
    const result = await impersonate({
      client,
      backend: BACKEND,
      orders: ORDERS,
      request: REQUEST,
      onStep: (name, detail) => {
        steps.push([name, detail]);
      },
    });
    expect(seen.backend).toEqual([
      { authorization: `Bearer engineer-token-for-${BACKEND.resource}`, body: REQUEST },
    ]);
    expect(client.calls).toEqual([
      {
        subjectToken: 'sub_x',
        resource: ORDERS.resource,
        scopes: ['read:orders'],
        actorToken: 'engineer-openid-token',
      },
    ]);
    expect(result).toEqual({
      subject: 'usr_alice',
      actor: 'usr_sam',
      scopes: ['read:orders'],
      orders: { status: 200, body: { orders: [], for: 'usr_alice', actor: 'usr_sam' } },
    });
    expect(steps.map(([name]) => name)).toEqual(['backend', 'exchange', 'orders']);
    expect(steps[1]![1]).toMatchObject({ sub: 'usr_alice', act: { sub: 'usr_sam' }, scope: 'read:orders' });
    expect(JSON.stringify([result, steps])).not.toContain(token);
  });

  it('reports the backend’s refusal as a StepError and exchanges nothing', async () => {
    backendAnswer = {
      status: 403,
      body: { error: 'access_denied', error_description: 'you cannot impersonate yourself' },
    };
    const client = fakeClient('unused');
    const err = await impersonate({ client, backend: BACKEND, orders: ORDERS, request: REQUEST }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StepError);
    expect(err).toMatchObject({ step: 'backend', status: 403, message: 'you cannot impersonate yourself' });
    expect(client.calls).toEqual([]);
  });

  it('reports a refused exchange with the OAuth error and description', async () => {
    const refusal = Object.assign(new Error('refused'), {
      status: 400,
      error: 'invalid_request',
      errorDescription: 'the subject token has already been used',
    });
    const err = await impersonate({
      client: fakeClient(refusal),
      backend: BACKEND,
      orders: ORDERS,
      request: REQUEST,
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({
      step: 'exchange',
      status: 400,
      message: 'invalid_request: the subject token has already been used',
    });
  });

  it('shows the orders API’s refusal of a bad token instead of hiding it', async () => {
    const expired = await issuer.tokens.expired({
      sub: 'usr_alice',
      scope: 'read:orders',
      act: { sub: 'usr_sam' },
    });
    const result = await impersonate({
      client: fakeClient(expired),
      backend: BACKEND,
      orders: ORDERS,
      request: REQUEST,
    });
    expect(result.orders).toMatchObject({ status: 401, body: { error: 'invalid_token' } });
  });
});

describe('readClaims()', () => {
  it('reads a JWT payload, including non-ASCII text', async () => {
    const token = await issuer.sign({ sub: 'usr_alice', name: 'Zoë' });
    expect(readClaims(token)).toMatchObject({ sub: 'usr_alice', name: 'Zoë', aud: ORDERS.resource });
  });
});
