import { createVerifier, KeysUnavailableError } from '@gatehouse/core';
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestIssuer, onUnhandledRequest } from '../src/index.js';
import { expectRejected } from './helpers/verify.js';

const issuer = await createTestIssuer();
const server = setupServer(...issuer.handlers);

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  server.resetHandlers();
  issuer.outage.clear();
});
afterAll(() => server.close());

/** A verifier that finds the JWKS through discovery, like an API configured with the issuer only. */
const discovering = (jwks = {}) =>
  createVerifier({ issuer: issuer.issuer, audience: issuer.audience, jwks: { cooldown: 0, ...jwks } });

describe('issuer.handlers', () => {
  it('serve OpenID discovery, the RFC 8414 form and the JWKS', async () => {
    const openid = await fetch(`${issuer.issuer}/.well-known/openid-configuration`);
    expect(openid.status).toBe(200);
    expect(await openid.json()).toMatchObject({ issuer: issuer.issuer, jwks_uri: issuer.jwksUri });

    const oauth = await fetch('https://issuer.gatehouse.test/.well-known/oauth-authorization-server/oidc');
    expect(await oauth.json()).toMatchObject({ issuer: issuer.issuer, jwks_uri: issuer.jwksUri });

    const jwks = await fetch(issuer.jwksUri);
    expect(jwks.headers.get('content-type')).toBe('application/jwk-set+json');
    expect(await jwks.json()).toEqual(issuer.jwks());
  });

  it('let a core verifier configured with the issuer only verify tokens', async () => {
    const auth = await discovering().verify(await issuer.sign({ scope: 'read:orders' }));
    expect(auth.scopes).toEqual(['read:orders']);
  });

  it('work for core when only the RFC 8414 document exists', async () => {
    server.use(
      http.get(
        `${issuer.issuer}/.well-known/openid-configuration`,
        () => new HttpResponse(null, { status: 404 }),
      ),
    );
    await expect(discovering().verify(await issuer.sign())).resolves.toBeDefined();
  });

  it('serve rotated keys without being registered again', async () => {
    const other = await createTestIssuer({ issuer: 'https://rotating.gatehouse.test' });
    server.use(...other.handlers);
    const verifier = createVerifier({ ...other.verifierOptions(), jwks: { cooldown: 0 } });
    await verifier.verify(await other.sign());
    await other.rotateKeys();
    await expect(verifier.verify(await other.sign())).resolves.toBeDefined();
  });

  it('of two issuers can be installed side by side', async () => {
    const second = await createTestIssuer({ issuer: 'https://second.gatehouse.test/tenant' });
    server.use(...second.handlers);
    await expect(discovering().verify(await issuer.sign())).resolves.toBeDefined();
    const v2 = createVerifier({ issuer: second.issuer, audience: second.audience });
    await expect(v2.verify(await second.sign())).resolves.toBeDefined();
    await expectRejected(v2, await issuer.sign({ iss: second.issuer }), 'key_not_found');
  });
});

describe('issuer.outage handlers: the 503 path (catalogue case 34)', () => {
  it('serverError() makes core fail closed with KeysUnavailableError (503, Retry-After)', async () => {
    server.use(issuer.outage.serverError());
    const error = await discovering()
      .verify(await issuer.sign())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KeysUnavailableError);
    expect(error).toMatchObject({ status: 503, reason: 'jwks_unavailable' });
    expect((error as KeysUnavailableError).headers['retry-after']).toMatch(/^\d+$/);
  });

  it('timeout() never answers, so the verifier times out into a 503', async () => {
    server.use(issuer.outage.timeout());
    const started = Date.now();
    await expectRejected(discovering({ timeout: 150 }), await issuer.sign(), 'jwks_unavailable', 503);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('timeout({ delay }) answers late: a 503 for a short verifier timeout, keys for a long one', async () => {
    server.use(issuer.outage.timeout({ delay: 300 }));
    await expectRejected(discovering({ timeout: 100 }), await issuer.sign(), 'jwks_unavailable', 503);
    await expect(discovering({ timeout: 2_000 }).verify(await issuer.sign())).resolves.toBeDefined();
  });

  it('malformed() answers truncated JSON: 503', async () => {
    server.use(issuer.outage.malformed());
    await expectRejected(discovering(), await issuer.sign(), 'jwks_unavailable', 503);
  });

  it('{ once: true } fails one request, then the issuer recovers', async () => {
    server.use(issuer.outage.serverError({ once: true }));
    const verifier = discovering({ backoffInitial: 0 });
    await expectRejected(verifier, await issuer.sign(), 'jwks_unavailable', 503);
    await expect(verifier.verify(await issuer.sign())).resolves.toBeDefined();
  });

  it('outage.simulate() switches the regular handlers too, until clear()', async () => {
    issuer.outage.simulate('serverError');
    expect(issuer.outage.current).toBe('serverError');
    expect((await fetch(issuer.jwksUri)).status).toBe(500);
    issuer.outage.clear();
    expect(issuer.outage.current).toBeUndefined();
    expect((await fetch(issuer.jwksUri)).status).toBe(200);
    expect(() => issuer.outage.simulate('down' as never)).toThrow(/outage kind must be one of/);
  });

  it('validate their options', () => {
    expect(() => issuer.outage.timeout({ delay: -1 })).toThrow(/"delay" option/);
    expect(() => issuer.outage.serverError({ once: 'yes' as never })).toThrow(/"once" option/);
  });
});

describe('onUnhandledRequest', () => {
  it('lets loopback requests through and fails any other unhandled request', async () => {
    const other = setupServer(...issuer.handlers);
    // A second interceptor cannot coexist with `server`: swap them for this test.
    server.close();
    other.listen({ onUnhandledRequest });
    try {
      const local = await issuer.listen({ port: 0 });
      try {
        expect((await fetch(`${local.url}/oidc/jwks`)).status).toBe(200);
      } finally {
        await local.close();
      }
      // msw turns the thrown error into a 500 "Unhandled Exception": the network is never reached.
      const escaped = await fetch('https://example.com/');
      expect([escaped.status, escaped.statusText]).toEqual([500, 'Unhandled Exception']);
      await escaped.text();
      expect((await fetch(issuer.jwksUri)).status).toBe(200);
    } finally {
      other.close();
      server.listen({ onUnhandledRequest: 'error' });
    }
  });
});
