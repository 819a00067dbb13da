/**
 * The package's one frozen {@link DEFAULTS} object. Every default a test issuer, its tokens and its
 * servers use is written here, with its unit and the reason for the value.
 *
 * @module
 */

/**
 * Signing algorithms a test issuer can use.
 *
 * @example
 * ```ts
 * const alg: TestAlgorithm = 'EdDSA';
 * const issuer = await createTestIssuer({ alg });
 * ```
 */
export type TestAlgorithm = 'ES256' | 'RS256' | 'PS256' | 'EdDSA';

/**
 * Every algorithm {@link createTestIssuer} accepts in its `alg` option.
 *
 * @example
 * ```ts
 * for (const alg of TEST_ALGORITHMS) {
 *   it(`accepts ${alg} tokens`, async () => {
 *     const issuer = await createTestIssuer({ alg });
 *     // ...
 *   });
 * }
 * ```
 */
export const TEST_ALGORITHMS: readonly TestAlgorithm[] = Object.freeze([
  'ES256',
  'RS256',
  'PS256',
  'EdDSA',
] as const);

/**
 * Default values of every test-issuer option and of the ready-made tokens. Times are seconds, like
 * the JWT claims they end up in.
 *
 * @example
 * ```ts
 * import { DEFAULTS, createTestIssuer } from '@gatehouse/testing';
 *
 * const issuer = await createTestIssuer();
 * issuer.issuer === DEFAULTS.issuer; // true
 * ```
 */
export const DEFAULTS = Object.freeze({
  /**
   * Issuer identifier (`iss`). The reserved `.test` TLD (RFC 2606) can never resolve, so a request that
   * escapes the mocks fails instead of reaching a real server.
   */
  issuer: 'https://issuer.gatehouse.test/oidc',
  /** Audience (`aud`): the resource indicator of the API under test. */
  audience: 'https://api.gatehouse.test',
  /** Signing algorithm. ES256 keys are generated in about a millisecond (RSA takes ~100 ms). */
  alg: 'ES256',
  /** `sub` of signed tokens. */
  subject: 'user-1',
  /** `client_id` of signed tokens (RFC 9068 §2.2). */
  clientId: 'test-client',
  /** Token lifetime in seconds (5 min): `exp = iat + expiresIn`. */
  expiresIn: 300,
  /** Header `typ` of signed tokens (RFC 9068 §2.1), accepted by core's `strict` mode too. */
  typ: 'at+jwt',
  /** Path of the JWKS below the issuer URL: `{issuer}/jwks`, as node-oidc-provider serves it. */
  jwksPath: '/jwks',
  /** Host a loopback server binds to in `listen()`. Core accepts `http:` for loopback hosts only. */
  host: '127.0.0.1',
  /**
   * Seconds by which ready-made expired tokens are past `exp`, and not-yet-valid tokens before `nbf`
   * (10 min): more than core's largest clock tolerance (300 s), so they fail under any configuration.
   */
  skew: 600,
  /** `aud` of `tokens.wrongAudience()`. */
  wrongAudience: 'https://other-api.gatehouse.test',
  /** `iss` of `tokens.wrongIssuer()`. */
  wrongIssuer: 'https://other-issuer.gatehouse.test/oidc',
  /** Header `typ` of `tokens.wrongType()`: a DPoP proof, which no verifier may take for an access token. */
  wrongTyp: 'dpop+jwt',
  /** Algorithm of `generateDpopKey()`: ES256 is the one every DPoP server supports, and its keys are quick to make. */
  dpopAlg: 'ES256',
  /** Header `typ` of DPoP proofs (RFC 9449 §4.2). */
  dpopTyp: 'dpop+jwt',
  /** Subject `CN` of `generateTestCertificate()`'s certificates. */
  certificateCommonName: 'test-client',
  /** Subject `CN` of the test certificate authority that signs client certificates. */
  certificateAuthorityName: 'Gatehouse Test CA',
  /**
   * Validity of test certificates in seconds (1 day) from when they are made (`notAfter`): longer than any test run, short
   * enough that a leaked one is worthless. Dated from `Date.now()`, but TLS checks it against the real
   * clock: make certificates before faking `Date`.
   */
  certificateValidity: 86_400,
  /** Seconds by which a test certificate's `notBefore` is backdated (5 min), so clock skew never makes it "not yet valid". */
  certificateBackdate: 300,
} as const);
