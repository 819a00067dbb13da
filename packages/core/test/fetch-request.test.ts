/**
 * `verifier.authenticate(request: Request)` (src/fetch-request.ts): the same extraction, DPoP and
 * error semantics as an adapter's RequestLike — compared here against the RequestLike a Node adapter
 * would build for the same request. The full table runs over HTTP in adapter-conformance.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toRequestLike } from '../src/fetch-request.js';
import {
  type AuthError,
  createVerifier,
  InvalidRequestError,
  isAuthError,
  type RequestLike,
  type Verifier,
} from '../src/index.js';
import { makeProof } from './helpers/dpop.js';
import { AUDIENCE, claims, ISSUER, jwksOf, makeKey, signToken } from './helpers/fixtures.js';
import { type JwksServer, startJwksServer } from './helpers/jwks-server.js';

let server: JwksServer;
let verifier: Verifier;
const key = makeKey('ES256');
const dpopKey = makeKey('EdDSA', 'client-dpop');

beforeAll(async () => {
  server = await startJwksServer(jwksOf(key));
  verifier = createVerifier({ issuer: ISSUER, audience: AUDIENCE, jwksUri: server.jwksUri });
});
afterAll(() => server.close());

const URL_ = 'https://api.test/orders';

/** The rejection of a promise, which must be an AuthError. */
async function failure(pending: Promise<unknown>): Promise<AuthError> {
  const error = await pending.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isAuthError(error), String(error)).toBe(true);
  return error as AuthError;
}

describe('authenticate(Request)', () => {
  it('accepts a Bearer token in the Authorization header', async () => {
    const token = signToken(key, claims());
    const auth = await verifier.authenticate(
      new Request(URL_, { headers: { authorization: `Bearer ${token}` } }),
    );
    expect(auth.subject).toBe('user-42');
  });

  it('answers like the RequestLike of a Node adapter, for each failure', async () => {
    const token = signToken(key, claims());
    const cases: Array<[string, Record<string, string>, RequestLike['headers']]> = [
      ['no token', {}, {}],
      ['bad syntax', { authorization: 'Bearer a,b' }, { authorization: 'Bearer a,b' }],
      [
        'bad signature',
        { authorization: `Bearer ${token.slice(0, -2)}AA` },
        { authorization: `Bearer ${token.slice(0, -2)}AA` },
      ],
      ['DPoP scheme without proof', { authorization: `DPoP ${token}` }, { authorization: `DPoP ${token}` }],
    ];
    for (const [name, headers, nodeHeaders] of cases) {
      const fromRequest = await failure(verifier.authenticate(new Request(URL_, { headers })));
      const fromLike = await failure(
        verifier.authenticate({ headers: nodeHeaders, method: 'GET', url: URL_ }),
      );
      expect(fromRequest.reason, name).toBe(fromLike.reason);
      expect(fromRequest.wwwAuthenticate, name).toBe(fromLike.wwwAuthenticate);
    }
  });

  it('A4: two Authorization lines joined by Headers are refused as multiple_tokens', async () => {
    const headers = new Headers();
    headers.append('authorization', `Bearer ${signToken(key, claims())}`);
    headers.append('authorization', 'Basic dXNlcjpwYXNz');
    const error = await failure(verifier.authenticate(new Request(URL_, { headers })));
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.reason).toBe('multiple_tokens');
  });

  it('A4: a form-body token next to a header token is refused, and the body stays readable', async () => {
    const token = signToken(key, claims());
    const request = new Request(URL_, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: `access_token=${token}`,
    });
    expect((await failure(verifier.authenticate(request))).reason).toBe('multiple_tokens');
    expect(await request.text()).toBe(`access_token=${token}`);
  });

  it('D9: the proof names the Host the client addressed, or the origin option; path and query from the URL', async () => {
    const jkt = await import('./helpers/dpop.js').then((m) => m.thumbprintOf(dpopKey));
    const token = signToken(key, claims({ cnf: { jkt } }));
    const at = (url: string, htu: string, host: string | undefined, origin?: string) =>
      verifier.authenticate(
        new Request(url, {
          headers: {
            authorization: `DPoP ${token}`,
            dpop: makeProof({ key: dpopKey, token, url: htu }),
            ...(host === undefined ? {} : { host }),
          },
        }),
        { origin },
      );
    const lan = 'http://10.0.0.7:8080/orders?x=1';
    await expect(at(lan, 'http://10.0.0.7:8080/orders', '10.0.0.7:8080')).resolves.toMatchObject({
      confirmation: { jkt },
    });
    expect((await failure(at(lan, URL_, '10.0.0.7:8080'))).reason).toBe('dpop_htu');
    await expect(at(lan, URL_, '10.0.0.7:8080', 'https://api.test')).resolves.toBeDefined();
    // A URL the server took from an absolute-form target counts by its path only: the Host header decides.
    await expect(
      at('http://evil.test/orders', 'http://10.0.0.7:8080/orders', '10.0.0.7:8080'),
    ).resolves.toBeDefined();
    expect(
      (await failure(at('http://evil.test/orders', 'http://evil.test/orders', '10.0.0.7:8080'))).reason,
    ).toBe('dpop_htu');
    // Without Host (HTTP/1.0) no proof matches, unless the origin is configured.
    expect((await failure(at(lan, 'http://10.0.0.7:8080/orders', undefined))).reason).toBe('dpop_htu');
    await expect(at(lan, URL_, undefined, 'https://api.test')).resolves.toBeDefined();
  });

  it('behind a proxy, the origin option names the URL a proof must carry', async () => {
    const jkt = await import('./helpers/dpop.js').then((m) => m.thumbprintOf(dpopKey));
    const token = signToken(key, claims({ cnf: { jkt } }));
    const proof = makeProof({ key: dpopKey, token, url: 'https://api.example.com/orders' });
    const request = new Request('http://10.0.0.7:8080/orders', {
      headers: { host: '10.0.0.7:8080', authorization: `DPoP ${token}`, dpop: proof },
    });
    const auth = await verifier.authenticate(request, { origin: 'https://api.example.com' });
    expect(auth.confirmation?.jkt).toBe(jkt);
  });

  it('D1, D2: reads the DPoP header only beside a credential in the DPoP scheme', async () => {
    const token = signToken(key, claims());
    const proof = 'eyJhbGciOiJFZERTQSJ9.e30.c2ln';
    const view = (authorization: string) =>
      toRequestLike(new Request(URL_, { headers: { authorization, dpop: proof } })) as RequestLike;
    expect(view(`Bearer ${token}`).headers.dpop).toBeUndefined();
    expect(view(`dpop ${token}`).headers.dpop).toBe(proof);
    expect(view(`DPoP ${token}`).headers.dpop).toBe(proof);
    // A Bearer token next to a stray DPoP header is still a Bearer token.
    const auth = await verifier.authenticate(
      new Request(URL_, { headers: { authorization: `Bearer ${token}`, dpop: proof } }),
    );
    expect(auth.subject).toBe('user-42');
    // D1: a bound token sent as Bearer stays refused, even beside a valid proof of its key.
    const jkt = await import('./helpers/dpop.js').then((m) => m.thumbprintOf(dpopKey));
    const bound = signToken(key, claims({ cnf: { jkt } }));
    const valid = makeProof({ key: dpopKey, token: bound, url: URL_ });
    const downgraded = new Request(URL_, { headers: { authorization: `Bearer ${bound}`, dpop: valid } });
    expect((await failure(verifier.authenticate(downgraded))).reason).toBe('bound_token');
    // D2: the DPoP scheme with no DPoP header is refused, whatever the case of the scheme.
    const missing = new Request(URL_, { headers: { authorization: `dpop ${bound}` } });
    expect((await failure(verifier.authenticate(missing))).reason).toBe('dpop_missing');
  });

  it('a bad origin option is a TypeError naming it', async () => {
    await expect(
      verifier.authenticate(new Request(URL_), { origin: 'https://api.test/path' }),
    ).rejects.toThrow(/"origin" option/);
  });
});
