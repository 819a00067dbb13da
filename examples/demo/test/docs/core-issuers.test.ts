/**
 * docs/core.md "Many issuers": a list of issuers with per-issuer overrides, and an issuer function for
 * tenants. The samples are the code below, line for line (docs-samples.test.ts checks it). The issuers
 * are @gatehouse/testing issuers whose discovery documents and JWKS msw serves.
 */
import { createVerifier, IssuerUnavailableError } from '@gatehouse/core';
import { createTestIssuer, onUnhandledRequest } from '@gatehouse/testing';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ORDERS = 'https://api.example.com/orders';
const main = await createTestIssuer({ issuer: 'https://id.example.com/oidc', audience: ORDERS });
const partner = await createTestIssuer({
  issuer: 'https://login.partner.example/',
  audience: 'partner-orders',
  alg: 'RS256',
});
const acme = await createTestIssuer({ issuer: 'https://acme.id.example.com/', audience: ORDERS });
const server = setupServer(...main.handlers, ...partner.handlers, ...acme.handlers);
beforeAll(() => server.listen({ onUnhandledRequest }));
afterAll(() => server.close());

/** The "Many issuers" sample. */
function listVerifier() {
  const verifier = createVerifier({
    issuer: [
      'https://id.example.com/oidc', // its own metadata, its own keys
      {
        issuer: 'https://login.partner.example/',
        audience: 'partner-orders', // what differs for this issuer's tokens
        algorithms: ['RS256'],
      },
    ],
    audience: 'https://api.example.com/orders',
  });
  return verifier;
}

/** The tenants sample: `tenants` stands for the application's own store. */
function tenantVerifier(tenants: { isActive(iss: string): Promise<boolean> }) {
  const verifier = createVerifier({
    issuer: async (iss) => iss.endsWith('.id.example.com/') && (await tenants.isActive(iss)),
    audience: 'https://api.example.com/orders',
    issuerCache: { max: 500, timeout: 2_000 },
  });
  return verifier;
}

describe('docs/core.md: many issuers', () => {
  it("a list: each issuer's tokens verify with its own keys and overrides", async () => {
    const verifier = listVerifier();
    await expect(verifier.verify(await main.sign())).resolves.toMatchObject({ issuer: main.issuer });
    await expect(verifier.verify(await partner.sign())).resolves.toMatchObject({ issuer: partner.issuer });
    // The partner's tokens must name the partner's audience; an issuer not listed is refused.
    await expect(verifier.verify(await partner.sign({ aud: ORDERS }))).rejects.toMatchObject({
      reason: 'audience',
    });
    await expect(verifier.verify(await acme.sign())).rejects.toMatchObject({ reason: 'issuer' });
    expect(verifier.keyStats.keySets).toBe(2);
  });

  it('a function: tenants the application trusts, 503 when it cannot tell', async () => {
    const asked: string[] = [];
    const verifier = tenantVerifier({
      isActive: async (iss) => {
        asked.push(iss);
        return iss === acme.issuer;
      },
    });
    await expect(verifier.verify(await acme.sign())).resolves.toMatchObject({ issuer: acme.issuer });
    await expect(verifier.verify(await acme.sign())).resolves.toBeDefined();
    expect(asked).toEqual([acme.issuer]); // the answer is cached
    await expect(verifier.verify(await main.sign())).rejects.toMatchObject({ reason: 'issuer' });
    expect(asked).toEqual([acme.issuer]); // not a tenant URL: never asked

    const down = tenantVerifier({ isActive: () => Promise.reject(new Error('database down')) });
    await expect(down.verify(await acme.sign())).rejects.toBeInstanceOf(IssuerUnavailableError);
  });
});
