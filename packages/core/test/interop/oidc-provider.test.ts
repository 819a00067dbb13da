/**
 * Interoperability: tokens minted by an independent authorization server (node-oidc-provider 9.x, on
 * loopback) verify under `strict: true` with discovery, and fail where they must.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { errors } from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVerifier, InvalidTokenError, KeysUnavailableError } from '../../src/index.js';
import { claims, jwksOf, makeKey, signToken } from '../helpers/fixtures.js';
import { startJwksServer } from '../helpers/jwks-server.js';

const RESOURCE = 'https://api.test/orders';
const CLIENT_ID = 'orders-worker';
/** Random per run; never printed. */
const CLIENT_SECRET = randomBytes(32).toString('base64url');

let server: Server;
let issuer: string;
const serverErrors: unknown[] = [];

beforeAll(async () => {
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => {
    res.writeHead(503).end();
  };
  server = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const signing = makeKey('ES256', 'op-es256');
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        token_endpoint_auth_method: 'client_secret_basic',
        // Only an ES256 key is configured; the RS256 default would fail client validation.
        id_token_signed_response_alg: 'ES256',
      },
    ],
    jwks: {
      keys: [{ ...signing.privateKey.export({ format: 'jwk' }), kid: signing.kid, alg: 'ES256', use: 'sig' }],
    },
    ttl: {
      ClientCredentials: (_ctx: unknown, token: { resourceServer?: { accessTokenTTL?: number } }) =>
        token.resourceServer?.accessTokenTTL ?? 60,
    },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        getResourceServerInfo: (_ctx: unknown, resourceIndicator: string) => {
          if (resourceIndicator !== RESOURCE) throw new errors.InvalidTarget();
          return {
            scope: 'read:orders write:orders',
            audience: RESOURCE,
            accessTokenTTL: 300,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'ES256' } },
          };
        },
      },
    },
  });
  provider.on('server_error', (_ctx, error) => serverErrors.push(error));
  handler = provider.callback();
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  expect(serverErrors).toEqual([]);
});

/** Client-credentials grant with client_secret_basic (RFC 6749 §2.3.1 form-encodes id and secret). */
async function requestToken(params: Record<string, string>): Promise<Record<string, unknown>> {
  const basic = Buffer.from(`${encodeURIComponent(CLIENT_ID)}:${encodeURIComponent(CLIENT_SECRET)}`).toString(
    'base64',
  );
  const response = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', ...params }),
  });
  const body = (await response.json()) as Record<string, unknown>;
  expect(response.status, `${String(body.error)}: ${String(body.error_description)}`).toBe(200);
  return body;
}

const decodeHeader = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split('.')[0]!, 'base64url').toString('utf8')) as Record<string, unknown>;

describe('interop with node-oidc-provider', () => {
  it('verifies a client-credentials JWT access token in strict mode, keys found by discovery', async () => {
    const response = await requestToken({ resource: RESOURCE, scope: 'read:orders' });
    expect(response.token_type).toBe('Bearer');
    const token = response.access_token as string;
    expect(token.split('.')).toHaveLength(3);
    expect(decodeHeader(token)).toMatchObject({ typ: 'at+jwt', alg: 'ES256', kid: 'op-es256' });

    const verifier = createVerifier({ issuer, audience: RESOURCE, strict: true });
    const auth = await verifier.verify(token, { scopes: 'read:orders' });
    expect(auth.issuer).toBe(issuer);
    expect(auth.audience).toEqual([RESOURCE]);
    expect(auth.clientId).toBe(CLIENT_ID);
    expect(auth.scopes).toEqual(['read:orders']);
    expect(auth.claims).toMatchObject({
      iss: issuer,
      aud: RESOURCE,
      client_id: CLIENT_ID,
      scope: 'read:orders',
    });
    expect(auth.claims.jti).toEqual(expect.any(String));
    expect(auth.claims.exp).toBe((auth.claims.iat as number) + 300);
    expect(verifier.keyStats.keys).toBe(1);

    await expect(verifier.verify(token, { scopes: 'write:orders' })).rejects.toMatchObject({
      status: 403,
      code: 'insufficient_scope',
    });
  });

  it('rejects the same token for another resource, issuer spelling or a tampered signature', async () => {
    const token = (await requestToken({ resource: RESOURCE, scope: 'read:orders write:orders' }))
      .access_token as string;
    const billing = createVerifier({
      issuer,
      audience: 'https://api.test/billing',
      strict: true,
    });
    await expect(billing.verify(token)).rejects.toMatchObject({ reason: 'audience' });

    // The issuer must match exactly: with a trailing slash, discovery finds a mismatching document.
    const slash = createVerifier({ issuer: `${issuer}/`, audience: RESOURCE, strict: true });
    await expect(slash.verify(token)).rejects.toBeInstanceOf(KeysUnavailableError);

    const verifier = createVerifier({ issuer, audience: RESOURCE, strict: true });
    const [h, p, s] = token.split('.') as [string, string, string];
    const forged = `${h}.${p}.${s.startsWith('A') ? `B${s.slice(1)}` : `A${s.slice(1)}`}`;
    const error = await verifier.verify(forged).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidTokenError);
    expect(error).toMatchObject({ reason: 'signature' });
    await expect(verifier.verify(token)).resolves.toMatchObject({ scopes: ['read:orders', 'write:orders'] });
  });

  it("E1: beside a second issuer, each issuer's keys verify only the tokens naming it", async () => {
    // The second issuer publishes a key under the provider's kid: only the issuer named picks the key set.
    const other = { ...makeKey('ES256', 'second-issuer'), kid: 'op-es256' };
    const second = await startJwksServer(jwksOf({ ...other, jwk: { ...other.jwk, kid: 'op-es256' } }));
    try {
      const verifier = createVerifier({ issuer: [issuer, second.issuer], audience: RESOURCE, strict: true });
      const token = (await requestToken({ resource: RESOURCE, scope: 'read:orders' })).access_token as string;
      await expect(verifier.verify(token)).resolves.toMatchObject({ issuer, clientId: CLIENT_ID });
      const fromSecond = signToken(other, claims({ iss: second.issuer, aud: RESOURCE }));
      await expect(verifier.verify(fromSecond)).resolves.toMatchObject({ issuer: second.issuer });
      // The second issuer's key, the provider's name: checked with the provider's keys only.
      const forged = signToken(other, claims({ iss: issuer, aud: RESOURCE }));
      await expect(verifier.verify(forged)).rejects.toMatchObject({ reason: 'signature' });
      expect(verifier.keyStats).toMatchObject({ keySets: 2, keys: 2 });
    } finally {
      await second.close();
    }
  });
});
