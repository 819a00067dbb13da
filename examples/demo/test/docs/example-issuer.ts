/**
 * The issuer the docs' samples name, `https://id.example.com/oidc`, played by a @gatehouse/testing
 * issuer whose discovery document and JWKS msw serves. Call `useExampleIssuer()` at the top of a test
 * file.
 */
import { createTestIssuer, onUnhandledRequest, type TestIssuer } from '@gatehouse/testing';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll } from 'vitest';

/** Start msw with the example issuer for this test file. */
export async function useExampleIssuer(audience = 'https://api.example.com'): Promise<TestIssuer> {
  const issuer = await createTestIssuer({ issuer: 'https://id.example.com/oidc', audience });
  const server = setupServer(...issuer.handlers);
  beforeAll(() => server.listen({ onUnhandledRequest }));
  afterAll(() => server.close());
  return issuer;
}

/** An `Authorization` header. */
export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
