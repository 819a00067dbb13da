import { createVerifier } from '@gatehouse/core';
import { describe, expect, it } from 'vitest';
import { createTestIssuer, DEFAULTS } from '../src/index.js';
import { isLoopbackHost, startLoopbackServer, validateListenOptions } from '../src/server.js';
import { expectRejected } from './helpers/verify.js';

describe('issuer.listen() with the default issuer', () => {
  it('moves the issuer onto the loopback server, where core verifies through discovery', async () => {
    const issuer = await createTestIssuer();
    const server = await issuer.listen();
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(issuer.issuer).toBe(`${server.url}/oidc`);
      expect(issuer.jwksUri).toBe(`${server.url}/oidc/jwks`);
      expect(server).toMatchObject({ issuer: issuer.issuer, jwksUri: issuer.jwksUri });

      // Real HTTP, no jwksUri given: core discovers it from the loopback server (http: is fine on loopback).
      const verifier = createVerifier({ issuer: issuer.issuer, audience: issuer.audience });
      const auth = await verifier.verify(await issuer.sign({ scope: 'read:orders' }));
      expect(auth).toMatchObject({ issuer: `${server.url}/oidc`, scopes: ['read:orders'] });
      await expectRejected(verifier, await issuer.tokens.tamperedSignature(), 'signature');

      const rfc8414 = await fetch(`${server.url}/.well-known/oauth-authorization-server/oidc`);
      expect(await rfc8414.json()).toMatchObject({ issuer: issuer.issuer, jwks_uri: issuer.jwksUri });
      const missing = await fetch(`${server.url}/nope`);
      expect(missing.status).toBe(404);
    } finally {
      await server.close();
    }
    expect(issuer.issuer).toBe(DEFAULTS.issuer);
    expect(issuer.jwksUri).toBe(`${DEFAULTS.issuer}/jwks`);
  });

  it('serves rotations and simulated outages over real HTTP (cases 33, 34)', async () => {
    const issuer = await createTestIssuer();
    const server = await issuer.listen();
    try {
      const verifier = createVerifier({
        ...issuer.verifierOptions(),
        jwks: { cooldown: 0, timeout: 150 },
        cache: false,
      });
      await verifier.verify(await issuer.sign());
      await issuer.rotateKeys();
      await expect(verifier.verify(await issuer.sign())).resolves.toBeDefined();

      for (const kind of ['serverError', 'malformed', 'timeout'] as const) {
        issuer.outage.simulate(kind);
        const fresh = createVerifier({ ...issuer.verifierOptions(), jwks: { timeout: 150 } });
        await expectRejected(fresh, await issuer.sign(), 'jwks_unavailable', 503);
      }
    } finally {
      issuer.outage.clear();
      await server.close();
    }
  });

  it('refuses a second listen() until close(), and close() is idempotent', async () => {
    const issuer = await createTestIssuer();
    const server = await issuer.listen();
    await expect(issuer.listen()).rejects.toThrow(/already listening/);
    await server.close();
    await server.close();
    // Concurrent calls: exactly one wins.
    const results = await Promise.allSettled([issuer.listen(), issuer.listen()]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    await (
      results.find((r) => r.status === 'fulfilled') as PromiseFulfilledResult<{ close(): Promise<void> }>
    ).value.close();
    await server.close();
    const again = await issuer.listen();
    expect(again.url).not.toBe('');
    await again.close();
  });

  it('cuts requests left hanging by a timeout outage when closed', async () => {
    const issuer = await createTestIssuer();
    const server = await issuer.listen();
    issuer.outage.simulate('timeout');
    const pending = fetch(issuer.jwksUri).then(
      () => 'answered',
      () => 'cut',
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    await server.close();
    expect(await pending).toBe('cut');
  });
});

describe('issuer.listen() with an explicit issuer', () => {
  it('binds the port of an http://127.0.0.1:PORT issuer and keeps the issuer URL', async () => {
    const probe = await startLoopbackServer(() => undefined);
    const port = Number(new URL(probe.origin).port);
    await probe.close();

    const issuer = await createTestIssuer({ issuer: `http://127.0.0.1:${port}/tenant-a` });
    const server = await issuer.listen();
    try {
      expect(server.url).toBe(`http://127.0.0.1:${port}`);
      expect(issuer.issuer).toBe(`http://127.0.0.1:${port}/tenant-a`);
      const verifier = createVerifier({ issuer: issuer.issuer, audience: issuer.audience });
      await expect(verifier.verify(await issuer.sign())).resolves.toBeDefined();
      await expect(issuer.listen({ port: port + 1 })).rejects.toThrow(/"port" option must match/);
    } finally {
      await server.close();
    }
  });

  it('keeps an https issuer in iss and moves only jwksUri onto the server', async () => {
    const issuer = await createTestIssuer({ issuer: 'https://id.example.com/oidc' });
    const server = await issuer.listen();
    try {
      expect(issuer.issuer).toBe('https://id.example.com/oidc');
      expect(issuer.jwksUri).toBe(`${server.url}/oidc/jwks`);
      const verifier = createVerifier(issuer.verifierOptions());
      const auth = await verifier.verify(await issuer.sign());
      expect(auth.issuer).toBe('https://id.example.com/oidc');
    } finally {
      await server.close();
    }
    expect(issuer.jwksUri).toBe('https://id.example.com/oidc/jwks');
  });
});

describe('listen options', () => {
  it('accepts loopback hosts only, and valid ports', async () => {
    expect(validateListenOptions(undefined)).toEqual({});
    expect(() => validateListenOptions({ host: '0.0.0.0' })).toThrow(/"host" option must be a loopback host/);
    expect(() => validateListenOptions({ host: 'example.com' })).toThrow(TypeError);
    expect(() => validateListenOptions({ port: 70_000 })).toThrow(/"port" option/);
    expect(() => validateListenOptions({ port: 1.5 })).toThrow(/"port" option/);
    expect(() => validateListenOptions('x')).toThrow(/listen options must be an object/);
    const issuer = await createTestIssuer();
    await expect(issuer.listen({ host: '0.0.0.0' })).rejects.toThrow(TypeError);
    expect(issuer.issuer).toBe(DEFAULTS.issuer);
  });

  it('knows the loopback hosts', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]'])
      expect(isLoopbackHost(host)).toBe(true);
    for (const host of ['0.0.0.0', '10.0.0.1', 'localhost.evil.test', '::'])
      expect(isLoopbackHost(host)).toBe(false);
  });

  it('can bind ::1', async () => {
    const issuer = await createTestIssuer();
    let server: Awaited<ReturnType<typeof issuer.listen>>;
    try {
      server = await issuer.listen({ host: '::1' });
    } catch (error) {
      // Hosts without IPv6 cannot bind ::1; the error must be the system's, not a validation error.
      expect(error).not.toBeInstanceOf(TypeError);
      return;
    }
    try {
      expect(server.url).toMatch(/^http:\/\/\[::1\]:\d+$/);
      await expect(
        createVerifier(issuer.verifierOptions()).verify(await issuer.sign()),
      ).resolves.toBeDefined();
    } finally {
      await server.close();
    }
  });

  it('reports a port in use', async () => {
    const first = await startLoopbackServer(() => undefined);
    const port = Number(new URL(first.origin).port);
    try {
      const issuer = await createTestIssuer();
      await expect(issuer.listen({ port })).rejects.toMatchObject({ code: 'EADDRINUSE' });
      expect(issuer.issuer).toBe(DEFAULTS.issuer);
    } finally {
      await first.close();
    }
  });
});
