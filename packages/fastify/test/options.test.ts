import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KeySetError } from '@gatehouse/core';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import gatehouse, { DEFAULTS } from '../src/index.js';

const base = { issuer: 'https://id.example.com', audience: 'https://api.example.com' };

/** A loopback issuer whose metadata names another issuer (localhost where the API says 127.0.0.1). */
async function misconfiguredIssuer(): Promise<{ issuer: string; close(): Promise<void> }> {
  const server = createServer((_req, res) => {
    const port = (server.address() as AddressInfo).port;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({ issuer: `http://localhost:${port}/oidc`, jwks_uri: `http://localhost:${port}/jwks` }),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    issuer: `http://127.0.0.1:${(server.address() as AddressInfo).port}/oidc`,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

describe('DEFAULTS', () => {
  it('is frozen and protective by default', () => {
    expect(Object.isFrozen(DEFAULTS)).toBe(true);
    expect(DEFAULTS).toEqual({ allowDelegation: true, handleErrors: true, mode: 'all', warmUp: false });
  });
});

describe('option validation at registration', () => {
  it('fails registration with a TypeError naming the option', async () => {
    const app = Fastify();
    app.register(gatehouse, { ...base, handleErrors: 1 } as never);
    await expect(app.ready()).rejects.toThrow('"handleErrors" option must be a boolean');
    await app.close();
  });

  it('refuses bad requireScope arguments when the route is declared', async () => {
    const app = Fastify();
    await app.register(gatehouse, base);
    expect(() => app.requireScope('a', { mode: 'some' } as never)).toThrow(
      '"mode" option must be "all" or "any"',
    );
    await app.close();
  });
});

describe("Fastify's own register options", () => {
  it('accepts prefix, logLevel and logSerializers beside its own options, and still refuses unknown ones', async () => {
    const app = Fastify();
    await app.register(gatehouse, {
      ...base,
      prefix: '/api',
      logLevel: 'warn',
      logSerializers: { req: () => 'r' },
    });
    app.get('/api/data', { onRequest: app.requireAuth }, async () => ({ ok: true }));
    const res = await app.inject({ method: 'GET', url: '/api/data' });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'unauthorized', error_description: 'No access token was provided' });
    await app.close();

    const typo = Fastify();
    typo.register(gatehouse, { ...base, prefix: '/api', prefx: '/api' } as never);
    await expect(typo.ready()).rejects.toThrow('unknown option "prefx"');
    await typo.close();
  });
});

describe('a misconfiguration is never silent', () => {
  it('refuses a mistyped option with the closest known name, and an empty scope requirement', async () => {
    const bad = Fastify();
    bad.register(gatehouse, { ...base, jwksUrl: 'https://id.example.com/jwks' } as never);
    await expect(bad.ready()).rejects.toThrow('unknown option "jwksUrl" (did you mean "jwksUri"?)');
    await bad.close();
    const app = Fastify();
    await app.register(gatehouse, base);
    for (const empty of ['', '  ', []]) expect(() => app.requireScope(empty)).toThrow(TypeError);
    await app.close();
  });

  it('with warmUp, registration fails with the explanation', async () => {
    const issuer = await misconfiguredIssuer();
    const app = Fastify();
    try {
      app.register(gatehouse, { ...base, issuer: issuer.issuer, warmUp: true, onWarning: false });
      const error = await app.ready().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(KeySetError);
      expect((error as KeySetError).code).toBe('issuer_mismatch');
    } finally {
      await app.close();
      await issuer.close();
    }
  });
});
