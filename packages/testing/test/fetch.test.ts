import { createVerifier } from '@gatehouse/core';
import { describe, expect, it } from 'vitest';
import { createTestIssuer } from '../src/index.js';
import { expectRejected } from './helpers/verify.js';

describe('issuer.fetch (no msw, no network)', () => {
  it('serves discovery and the JWKS to a core verifier built with a custom fetch', async () => {
    const issuer = await createTestIssuer();
    // No jwksUri: discovery runs through issuer.fetch too.
    const verifier = createVerifier({
      issuer: issuer.issuer,
      audience: issuer.audience,
      fetch: issuer.fetch,
    });
    await expect(verifier.verify(await issuer.sign())).resolves.toMatchObject({ subject: 'user-1' });
    await expectRejected(verifier, await issuer.tokens.wrongAudience(), 'audience');
  });

  it('answers like a server: JSON documents, HEAD without body, 405 for other methods', async () => {
    const issuer = await createTestIssuer();
    const meta = await issuer.fetch(`${issuer.issuer}/.well-known/openid-configuration`);
    expect(meta.status).toBe(200);
    expect(await meta.json()).toMatchObject({ issuer: issuer.issuer, jwks_uri: issuer.jwksUri });
    const jwks = await issuer.fetch(new URL(`${issuer.jwksUri}?x=1`));
    expect(await jwks.json()).toEqual(issuer.jwks());
    const head = await issuer.fetch(new Request(issuer.jwksUri, { method: 'HEAD' }));
    expect([head.status, await head.text()]).toEqual([200, '']);
    expect((await issuer.fetch(issuer.jwksUri, { method: 'POST' })).status).toBe(405);
  });

  it('rejects every other URL like a network error', async () => {
    const issuer = await createTestIssuer();
    await expect(issuer.fetch('https://example.com/')).rejects.toThrow(TypeError);
    await expect(issuer.fetch(`${issuer.issuer}/token`)).rejects.toThrow(/not served by the test issuer/);
    await expect(issuer.fetch('/relative')).rejects.toThrow(TypeError);
  });

  it('honours abort signals, and a simulated timeout waits for one (case 34)', async () => {
    const issuer = await createTestIssuer();
    await expect(issuer.fetch(issuer.jwksUri, { signal: AbortSignal.abort() })).rejects.toMatchObject({
      name: 'AbortError',
    });
    issuer.outage.simulate('timeout');
    await expect(issuer.fetch(issuer.jwksUri, { signal: AbortSignal.timeout(50) })).rejects.toMatchObject({
      name: 'TimeoutError',
    });
    const verifier = createVerifier({
      ...issuer.verifierOptions(),
      fetch: issuer.fetch,
      jwks: { timeout: 100 },
    });
    await expectRejected(verifier, await issuer.sign(), 'jwks_unavailable', 503);
  });

  it('reports serverError and malformed outages to core as 503', async () => {
    for (const kind of ['serverError', 'malformed'] as const) {
      const issuer = await createTestIssuer();
      issuer.outage.simulate(kind);
      const verifier = createVerifier({ ...issuer.verifierOptions(), fetch: issuer.fetch });
      await expectRejected(verifier, await issuer.sign(), 'jwks_unavailable', 503);
      issuer.outage.clear();
      expect((await issuer.fetch(issuer.jwksUri)).status).toBe(200);
    }
  });

  it("belongs to its issuer: another issuer's URLs are not served", async () => {
    const [a, b] = await Promise.all([
      createTestIssuer(),
      createTestIssuer({ issuer: 'https://b.gatehouse.test' }),
    ]);
    await expect(a.fetch(b.jwksUri)).rejects.toThrow(TypeError);
    expect(await (await b.fetch(b.jwksUri)).json()).toEqual(b.jwks());
  });
});
