/**
 * `@gatehouse/testing`: test an API protected by Gatehouse without a network and without a real issuer.
 * A test issuer signs access tokens (good ones and ready-made bad ones) and serves discovery and its JWKS
 * as msw handlers, as an in-memory `fetch`, or on a real loopback server.
 *
 * @example
 * ```ts
 * import { createTestIssuer } from '@gatehouse/testing';
 * import { setupServer } from 'msw/node';
 *
 * const issuer = await createTestIssuer();
 * const server = setupServer(...issuer.handlers);
 * server.listen({ onUnhandledRequest: 'error' });
 *
 * const token = await issuer.sign({ scope: 'read:orders' });
 * ```
 *
 * @module
 */
export {
  clientCertHeader,
  createTestCertificateAuthority,
  generateTestCertificate,
  type TestCertificate,
  type TestCertificateAuthority,
  type TestCertificateAuthorityOptions,
  type TestCertificateOptions,
} from './certificates.js';
export { DEFAULTS, TEST_ALGORITHMS, type TestAlgorithm } from './defaults.js';
export {
  accessTokenHash,
  createDpopProof,
  type DpopAlgorithm,
  type DpopKey,
  type DpopProofOptions,
  type DpopPublicJwk,
  generateDpopKey,
} from './dpop.js';
export { type OutageOptions, onUnhandledRequest, type TimeoutOutageOptions } from './handlers.js';
export type { OutageKind } from './internal/routes.js';
export type { PublicJwk, RotateOptions, TestJwks } from './keys.js';
export type { SignOptions, TestIssuerOptions } from './options.js';
export type { IssuerServer, ListenOptions } from './server.js';
export { createTestIssuer } from './test-issuer.js';
export { type CertificateInput, certificateThumbprint, type JwkInput, thumbprint } from './thumbprint.js';
export { tamperSignature } from './tokens.js';
export type {
  ActorClaim,
  BadTokenFactory,
  BadTokens,
  Claims,
  Outage,
  TestIssuer,
  VerifierConnection,
} from './types.js';
