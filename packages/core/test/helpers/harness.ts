/**
 * One loopback JWKS server per test file plus fresh verifiers against it, with the "0F" check: a
 * rejection that must happen before any key is fetched is asserted on the server's request count and
 * on the verifier's own fetch counter, and every URL a verifier requests is recorded.
 */
import { expect } from 'vitest';
import { type AuthError, createVerifier, type Verifier, type VerifierOptions } from '../../src/index.js';
import { type ExpectedError, expectAuthError } from './assertions.js';
import { AUDIENCE, ISSUER } from './fixtures.js';
import { type JwksServer, startJwksServer } from './jwks-server.js';

export interface Harness {
  readonly server: JwksServer;
  /** Every URL requested by verifiers of this harness, in order. */
  readonly requested: string[];
  /** A fresh verifier (empty key and result caches) for the harness's issuer and JWKS. */
  verifier(options?: Partial<VerifierOptions>): Verifier;
  /** A fresh verifier must reject `token` with `expected` and fetch nothing ("0F"). */
  rejectsWithoutFetch(
    token: string,
    expected: ExpectedError,
    options?: Partial<VerifierOptions>,
  ): Promise<AuthError>;
  /** A fresh verifier must reject `token` with `expected` (a key fetch is allowed). */
  rejects(token: string, expected: ExpectedError, options?: Partial<VerifierOptions>): Promise<AuthError>;
  close(): Promise<void>;
}

export async function startHarness(jwks: unknown): Promise<Harness> {
  const server = await startJwksServer(jwks);
  const requested: string[] = [];
  const recordingFetch: typeof fetch = (input, init) => {
    requested.push(input instanceof Request ? input.url : String(input));
    return fetch(input, init);
  };
  const verifier = (options: Partial<VerifierOptions> = {}) =>
    createVerifier({
      issuer: ISSUER,
      audience: AUDIENCE,
      jwksUri: server.jwksUri,
      fetch: recordingFetch,
      ...options,
    });

  return {
    server,
    requested,
    verifier,
    async rejectsWithoutFetch(token, expected, options) {
      const v = verifier(options);
      const before = server.jwksHits();
      const error = await expectAuthError(v.verify(token), expected);
      expect(server.jwksHits() - before, 'JWKS requests').toBe(0);
      expect(v.keyStats.fetches, 'verifier fetches').toBe(0);
      return error;
    },
    rejects(token, expected, options) {
      return expectAuthError(verifier(options).verify(token), expected);
    },
    close: () => server.close(),
  };
}
