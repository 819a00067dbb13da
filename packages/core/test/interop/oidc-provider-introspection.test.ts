/**
 * Interoperability of the introspection path with an independent authorization server
 * (node-oidc-provider 9.x on loopback, issuing opaque access tokens): discovery of the endpoint,
 * client_secret_basic, plain JSON and signed JWT answers (RFC 9701, `jwtIntrospection`), and a
 * revocation (RFC 7009) refused at once in `always` mode.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { errors } from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVerifier, IntrospectionUnavailableError, InvalidTokenError } from '../../src/index.js';
import { makeKey } from '../helpers/fixtures.js';

const RESOURCE = 'https://api.test/orders';
const WORKER = 'orders-worker';
/** Random per run; never printed. */
const SECRET = randomBytes(32).toString('base64url');

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
  const client = (client_id: string, extra: Record<string, unknown> = {}) => ({
    client_id,
    client_secret: SECRET,
    grant_types: ['client_credentials'],
    redirect_uris: [],
    response_types: [],
    token_endpoint_auth_method: 'client_secret_basic',
    id_token_signed_response_alg: 'ES256',
    // Only an ES256 key is configured; the RS256 default would fail client validation.
    introspection_signed_response_alg: 'ES256',
    ...extra,
  });
  const provider = new Provider(issuer, {
    clients: [client(WORKER), client('orders-api')],
    jwks: {
      keys: [{ ...signing.privateKey.export({ format: 'jwk' }), kid: signing.kid, alg: 'ES256', use: 'sig' }],
    },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      jwtIntrospection: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        getResourceServerInfo: (_ctx: unknown, resourceIndicator: string) => {
          if (resourceIndicator !== RESOURCE) throw new errors.InvalidTarget();
          return {
            scope: 'read:orders write:orders',
            audience: RESOURCE,
            accessTokenTTL: 300,
            accessTokenFormat: 'opaque',
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

const basic = (id: string) => `Basic ${Buffer.from(`${id}:${SECRET}`).toString('base64')}`;

async function opaqueToken(): Promise<string> {
  const response = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: { authorization: basic(WORKER) },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource: RESOURCE, scope: 'read:orders' }),
  });
  const body = (await response.json()) as Record<string, unknown>;
  expect(response.status, `${String(body.error)}: ${String(body.error_description)}`).toBe(200);
  return body.access_token as string;
}

/** A verifier of RESOURCE introspecting as `clientId`; `types` records the media type of each answer. */
function api(clientId: string, mode: 'opaque' | 'always' = 'opaque') {
  const types: string[] = [];
  const verifier = createVerifier({
    issuer,
    audience: RESOURCE,
    onWarning: false,
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      if (init?.method === 'POST') types.push(response.headers.get('content-type') ?? '');
      return response;
    },
    introspection: { clientId, clientSecret: SECRET, mode },
  });
  return { verifier, types };
}

describe('introspection interop with node-oidc-provider', () => {
  it('E5: an opaque token is introspected at the discovered endpoint and mapped', async () => {
    const token = await opaqueToken();
    expect(token).not.toContain('.');
    const { verifier } = api('orders-api');
    const auth = await verifier.verify(token, { scopes: 'read:orders' });
    expect(auth).toMatchObject({
      issuer,
      audience: [RESOURCE],
      clientId: WORKER,
      scopes: ['read:orders'],
    });
    expect(auth.expiresAt.getTime()).toBeGreaterThan(Date.now() + 250_000);
  });

  it('E19: the metadata offers signed answers (RFC 9701), so a JWT is asked for and verified with the issuer keys', async () => {
    const token = await opaqueToken();
    const { verifier, types } = api('orders-api');
    const auth = await verifier.verify(token);
    expect(auth).toMatchObject({ clientId: WORKER, audience: [RESOURCE] });
    expect(types).toEqual([expect.stringMatching(/^application\/token-introspection\+jwt/)]);
    expect(verifier.keyStats.keys).toBe(1);
  });

  it("E13: revoked at the issuer (RFC 7009) → refused at the next request in 'always' mode", async () => {
    const token = await opaqueToken();
    const { verifier } = api('orders-api', 'always');
    await expect(verifier.verify(token)).resolves.toMatchObject({ clientId: WORKER });
    const revoked = await fetch(`${issuer}/token/revocation`, {
      method: 'POST',
      headers: { authorization: basic(WORKER) },
      body: new URLSearchParams({ token }),
    });
    expect(revoked.status).toBe(200);
    const error = await verifier.verify(token).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidTokenError);
    expect(error).toMatchObject({ reason: 'inactive' });
  });

  it('E7: the API with a wrong secret gets 401 invalid_client from the issuer and answers 503', async () => {
    const verifier = createVerifier({
      issuer,
      audience: RESOURCE,
      onWarning: false,
      introspection: { clientId: 'orders-api', clientSecret: 'not-the-secret' },
    });
    const error = await verifier.verify(await opaqueToken()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IntrospectionUnavailableError);
    expect(String((error as { cause?: unknown }).cause)).toMatch(/HTTP 401/);
  });
});
