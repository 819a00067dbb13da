import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { discoverJwksUri, metadataUrls } from '../src/discovery.js';
import {
  createVerifier,
  KeySetError,
  KeysUnavailableError,
  type Verifier,
  type VerifierOptions,
} from '../src/index.js';
import { FetchFailure, type FetchLimits } from '../src/internal/fetch.js';
import { AUDIENCE, claims, jwksOf, makeKey, signToken } from './helpers/fixtures.js';
import { json, startServer, status, type TestServer } from './helpers/http-server.js';
import { type JwksServer, startJwksServer } from './helpers/jwks-server.js';

const KEY = makeKey('ES256', 'disco-1');
const KEY2 = makeKey('ES256', 'disco-2');
const OPENID = '/oidc/.well-known/openid-configuration';
const RFC8414 = '/.well-known/oauth-authorization-server/oidc';

afterEach(() => {
  vi.useRealTimers();
});

const limits = (overrides: Partial<FetchLimits> = {}): FetchLimits => ({
  fetch: (input, init) => globalThis.fetch(input, init),
  timeout: 1_000,
  maxResponseBytes: 64 * 1024,
  allowInsecureHttp: false,
  ...overrides,
});

async function issuerServer(): Promise<JwksServer> {
  const server = await startJwksServer(jwksOf(KEY));
  onTestFinished(() => server.close());
  return server;
}

/** A server with only the routes given (everything else 404); its issuer is `{origin}/oidc`. */
async function routesServer(
  routes: (origin: string) => Parameters<typeof startServer>[0],
): Promise<TestServer> {
  const server = await startServer();
  for (const [path, handler] of Object.entries(routes(server.origin) ?? {})) server.route(path, handler);
  onTestFinished(() => server.close());
  return server;
}

const discovering = (issuer: string, options: Partial<VerifierOptions> = {}): Verifier =>
  createVerifier({
    issuer,
    audience: AUDIENCE,
    ...options,
    jwks: { cooldown: 200, cacheMaxAge: 500, backoffInitial: 50, ...options.jwks },
  });

async function failure(promise: Promise<unknown>): Promise<FetchFailure> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FetchFailure);
  return error as FetchFailure;
}

describe('metadataUrls', () => {
  it('builds the OpenID form, then the RFC 8414 form with the path after the well-known segment', () => {
    expect(metadataUrls('https://id.example.com/tenant/a').map(String)).toEqual([
      'https://id.example.com/tenant/a/.well-known/openid-configuration',
      'https://id.example.com/.well-known/oauth-authorization-server/tenant/a',
    ]);
    expect(metadataUrls('https://id.example.com').map(String)).toEqual([
      'https://id.example.com/.well-known/openid-configuration',
      'https://id.example.com/.well-known/oauth-authorization-server',
    ]);
  });

  it('drops a terminating slash of the issuer path before inserting the well-known segment', () => {
    expect(metadataUrls('https://id.example.com/oidc/').map(String)).toEqual(
      metadataUrls('https://id.example.com/oidc').map(String),
    );
  });
});

describe('discoverJwksUri', () => {
  it('reads jwks_uri from the OpenID document', async () => {
    const server = await issuerServer();
    const uri = await discoverJwksUri(server.issuer, limits());
    expect(uri.href).toBe(server.jwksUri);
    expect(server.hits.get(OPENID)).toBe(1);
  });

  it('falls back to the RFC 8414 document when the OpenID one is 404 or 410', async () => {
    for (const missing of [404, 410]) {
      const server = await routesServer((origin) => ({
        [OPENID]: status(missing),
        [RFC8414]: json({ issuer: `${origin}/oidc`, jwks_uri: `${origin}/keys` }),
      }));
      const uri = await discoverJwksUri(`${server.origin}/oidc`, limits());
      expect(uri.href).toBe(`${server.origin}/keys`);
      expect(server.hits.get(OPENID)).toBe(1);
      expect(server.hits.get(RFC8414)).toBe(1);
    }
  });

  it('reports an outage of the OpenID document as it is, without trying RFC 8414', async () => {
    const server = await routesServer((origin) => ({
      [OPENID]: status(500),
      [RFC8414]: json({ issuer: `${origin}/oidc`, jwks_uri: `${origin}/keys` }),
    }));
    const error = await failure(discoverJwksUri(`${server.origin}/oidc`, limits()));
    expect(error.status).toBe(500);
    expect(server.hits.get(RFC8414)).toBeUndefined();
  });

  it('fails when neither document exists', async () => {
    const server = await routesServer(() => ({}));
    const error = await failure(discoverJwksUri(`${server.origin}/oidc`, limits()));
    expect(error.status).toBe(404);
    expect(server.total()).toBe(2);
  });

  it('requires the metadata issuer to equal the configured issuer exactly', async () => {
    const server = await issuerServer();
    const variants = [
      `${server.issuer}/`,
      server.issuer.toUpperCase(),
      server.issuer.replace('127.0.0.1', 'localhost'),
      [server.issuer],
      undefined,
    ];
    for (const issuer of variants) {
      server.setMetadata({ issuer, jwks_uri: server.jwksUri });
      const error = await failure(discoverJwksUri(server.issuer, limits()));
      expect(error.message).toMatch(/issuer/);
    }
  });

  it('checks the RFC 8414 document issuer too', async () => {
    const server = await routesServer((origin) => ({
      [RFC8414]: json({ issuer: `${origin}/other`, jwks_uri: `${origin}/keys` }),
    }));
    const error = await failure(discoverJwksUri(`${server.origin}/oidc`, limits()));
    expect(error.message).toMatch(/issuer/);
  });

  it('rejects a missing, non-string, relative or insecure jwks_uri', async () => {
    const server = await issuerServer();
    for (const jwks_uri of [
      undefined,
      42,
      '/jwks',
      'http://jwks.example.com/keys',
      'ftp://example.com/keys',
    ]) {
      server.setMetadata({ issuer: server.issuer, jwks_uri });
      await failure(discoverJwksUri(server.issuer, limits()));
    }
    // allowInsecureHttp lets a plain-http jwks_uri through (on an allowed origin).
    server.setMetadata({ issuer: server.issuer, jwks_uri: 'http://jwks.example.com/keys' });
    const uri = await discoverJwksUri(server.issuer, limits({ allowInsecureHttp: true }), [
      'http://jwks.example.com',
    ]);
    expect(uri.href).toBe('http://jwks.example.com/keys');
  });

  it('B78: refuses a jwks_uri on another origin than the issuer, unless that origin is allowed', async () => {
    const server = await issuerServer();
    const elsewhere = [
      'https://keys.attacker.example/jwks',
      `${server.origin.replace(/:\d+$/, ':1')}/jwks`, // same host, another port
      server.jwksUri.replace('127.0.0.1', 'localhost'), // another host name for the same machine
      `https://127.0.0.1:${new URL(server.origin).port}/jwks`, // another scheme
    ];
    for (const jwks_uri of elsewhere) {
      server.setMetadata({ issuer: server.issuer, jwks_uri });
      const error = await failure(discoverJwksUri(server.issuer, limits()));
      expect(error.code, jwks_uri).toBe('jwks_uri_origin');
      expect(error.message).toBe(
        `the metadata jwks_uri ${jwks_uri} is not on the issuer's origin ${server.origin}`,
      );
      // Allowed explicitly: accepted.
      const allowed = await discoverJwksUri(server.issuer, limits(), [new URL(jwks_uri).origin]);
      expect(allowed.href).toBe(jwks_uri);
    }
    // On the issuer's origin (any path, default port spelled out or not): accepted.
    server.setMetadata({ issuer: server.issuer, jwks_uri: `${server.origin}/somewhere/else/keys` });
    expect((await discoverJwksUri(server.issuer, limits())).origin).toBe(server.origin);
    const secure = await routesServer(() => ({
      [OPENID]: json({ issuer: 'https://id.example.com/oidc', jwks_uri: 'https://ID.example.com:443/k' }),
    }));
    const viaFetch = limits({
      fetch: (input, init) =>
        globalThis.fetch(String(input).replace('https://id.example.com', secure.origin), init),
    });
    expect((await discoverJwksUri('https://id.example.com/oidc', viaFetch)).href).toBe(
      'https://id.example.com/k',
    );
  });

  it('rejects a document that is not a JSON object', async () => {
    for (const body of [null, 'text', 7]) {
      const server = await routesServer(() => ({ [OPENID]: json(body) }));
      await failure(discoverJwksUri(`${server.origin}/oidc`, limits()));
    }
  });
});

describe('a verifier that discovers its keys', () => {
  it('verifies through the OpenID document, fetched once and cached across JWKS refreshes', async () => {
    const advance = (() => {
      vi.useFakeTimers({ toFake: ['Date'] });
      let now = Date.now();
      vi.setSystemTime(now);
      return (ms: number) => {
        now += ms;
        vi.setSystemTime(now);
      };
    })();
    const server = await issuerServer();
    const verifier = discovering(server.issuer);
    const token = () => signToken(KEY, claims({ iss: server.issuer }));
    await expect(verifier.verify(token())).resolves.toMatchObject({ issuer: server.issuer });
    expect(server.hits.get(OPENID)).toBe(1);
    expect(server.jwksHits()).toBe(1);

    // Rotation (unknown kid after the cooldown) and expiry (after cacheMaxAge) refetch only the JWKS.
    server.setKeys(jwksOf(KEY, KEY2));
    advance(201);
    await expect(verifier.verify(signToken(KEY2, claims({ iss: server.issuer })))).resolves.toBeDefined();
    advance(501);
    await expect(verifier.verify(token())).resolves.toBeDefined();
    expect(server.jwksHits()).toBe(3);
    expect(server.hits.get(OPENID)).toBe(1);
  });

  it('verifies through the RFC 8414 document when the OpenID one is missing', async () => {
    const server = await routesServer((origin) => ({
      [RFC8414]: json({ issuer: `${origin}/oidc`, jwks_uri: `${origin}/keys` }),
      '/keys': json(jwksOf(KEY)),
    }));
    const issuer = `${server.origin}/oidc`;
    await expect(discovering(issuer).verify(signToken(KEY, claims({ iss: issuer })))).resolves.toMatchObject({
      issuer,
    });
    expect(server.hits.get(OPENID)).toBe(1);
    expect(server.hits.get(RFC8414)).toBe(1);
    expect(server.hits.get('/keys')).toBe(1);
  });

  it('answers 503 (no keys) when the metadata issuer does not match, and never fetches its jwks_uri', async () => {
    const server = await issuerServer();
    server.setMetadata({ issuer: 'https://issuer.test/oidc', jwks_uri: server.jwksUri });
    const error = await discovering(server.issuer)
      .verify(signToken(KEY, claims({ iss: server.issuer })))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KeysUnavailableError);
    expect(error).toMatchObject({ status: 503 });
    expect(server.jwksHits()).toBe(0);
  });

  it('answers 503 when the discovered jwks_uri is http: on a non-loopback host, and requests nothing there', async () => {
    const server = await issuerServer();
    server.setMetadata({ issuer: server.issuer, jwks_uri: 'http://jwks.example.com/keys' });
    const requested: string[] = [];
    const verifier = discovering(server.issuer, {
      fetch: (input, init) => {
        requested.push(String(input));
        return globalThis.fetch(input, init);
      },
    });
    await expect(verifier.verify(signToken(KEY, claims({ iss: server.issuer })))).rejects.toBeInstanceOf(
      KeysUnavailableError,
    );
    expect(requested).toEqual([`${server.origin}${OPENID}`]);
  });

  it('B78: a poisoned document naming keys on another origin is refused, no key is fetched there', async () => {
    const ATTACKER = makeKey('ES256', 'attacker');
    const issuer = await issuerServer();
    const attacker = await startJwksServer(jwksOf(ATTACKER));
    onTestFinished(() => attacker.close());
    issuer.setMetadata({ issuer: issuer.issuer, jwks_uri: attacker.jwksUri });
    const forged = signToken(ATTACKER, claims({ iss: issuer.issuer }));

    const verifier = discovering(issuer.issuer);
    const cause = await verifier.warmUp().then(
      () => undefined,
      (error: unknown) => error as KeySetError,
    );
    expect(cause).toBeInstanceOf(KeySetError);
    expect(cause!.code).toBe('jwks_uri_origin');
    expect(cause!.kind).toBe('configuration');
    expect(cause!.message).toBe(
      `cannot get the signing keys of issuer "${issuer.issuer}": the metadata jwks_uri ${attacker.jwksUri} is not on the issuer's origin ${issuer.origin} (${issuer.origin}${OPENID}). Keys found by discovery must be on the issuer's own origin, so a forged or poisoned metadata document cannot redirect key fetching. If the issuer really publishes its keys elsewhere, list that origin in "jwks.allowedOrigins", or set "jwksUri".`,
    );
    await expect(verifier.verify(forged)).rejects.toBeInstanceOf(KeysUnavailableError);
    expect(attacker.jwksHits()).toBe(0);

    // The application says the keys do live there: then they are used.
    const trusting = discovering(issuer.issuer, { jwks: { allowedOrigins: [attacker.origin] } });
    await expect(trusting.verify(forged)).resolves.toMatchObject({ issuer: issuer.issuer });
    expect(attacker.jwksHits()).toBe(1);
  });

  it('retries a failed discovery after the backoff, then succeeds', async () => {
    const server = await issuerServer();
    server.setMetadata(null);
    const verifier = discovering(server.issuer);
    const token = signToken(KEY, claims({ iss: server.issuer }));
    await expect(verifier.verify(token)).rejects.toBeInstanceOf(KeysUnavailableError);
    await expect(verifier.verify(token)).rejects.toBeInstanceOf(KeysUnavailableError); // within the backoff
    expect(server.hits.get(OPENID)).toBe(1);

    server.setMetadata({ issuer: server.issuer, jwks_uri: server.jwksUri });
    await new Promise((resolve) => setTimeout(resolve, 60));
    await expect(verifier.verify(token)).resolves.toBeDefined();
    expect(server.hits.get(OPENID)).toBe(2);
    expect(server.jwksHits()).toBe(1);
  });

  it('serves a cold herd of 100 requests from one discovery and one JWKS fetch', async () => {
    const server = await issuerServer();
    server.setLatency(50);
    const verifier = discovering(server.issuer, { cache: false });
    const results = await Promise.all(
      Array.from({ length: 100 }, () => verifier.verify(signToken(KEY, claims({ iss: server.issuer })))),
    );
    expect(results.every((r) => r.subject === 'user-42')).toBe(true);
    expect(server.hits.get(OPENID)).toBe(1);
    expect(server.jwksHits()).toBe(1);
  });
});
