import type { HttpHandler } from 'msw';
import { describe, expectTypeOf, it } from 'vitest';
import type {
  ActorClaim,
  BadTokenFactory,
  CertificateInput,
  clientCertHeader,
  createDpopProof,
  DpopKey,
  DpopProofOptions,
  generateDpopKey,
  generateTestCertificate,
  IssuerServer,
  OutageKind,
  PublicJwk,
  SignOptions,
  TestAlgorithm,
  TestCertificate,
  TestCertificateAuthority,
  TestIssuer,
  TestIssuerOptions,
  thumbprint,
  VerifierConnection,
} from '../src/index.js';

// Compile-time checks (tsc --noEmit runs over test/): the public types keep the contract's shape.
describe('public types', () => {
  it('TestIssuer members have the contract signatures', () => {
    expectTypeOf<TestIssuer['handlers']>().toEqualTypeOf<HttpHandler[]>();
    expectTypeOf<TestIssuer['sign']>().parameters.toEqualTypeOf<[Record<string, unknown>?, SignOptions?]>();
    expectTypeOf<TestIssuer['sign']>().returns.toEqualTypeOf<Promise<string>>();
    expectTypeOf<TestIssuer['tokens']['expired']>().toEqualTypeOf<BadTokenFactory>();
    expectTypeOf<TestIssuer['impersonation']>().parameter(0).toEqualTypeOf<string | ActorClaim>();
    expectTypeOf<TestIssuer['fetch']>().toEqualTypeOf<typeof fetch>();
    expectTypeOf<TestIssuer['verifierOptions']>().returns.toEqualTypeOf<VerifierConnection>();
    expectTypeOf<TestIssuer['listen']>().returns.toEqualTypeOf<Promise<IssuerServer>>();
    expectTypeOf<TestIssuer['outage']['simulate']>().parameter(0).toEqualTypeOf<OutageKind>();
    expectTypeOf<TestIssuer['alg']>().toEqualTypeOf<TestAlgorithm>();
    expectTypeOf<ReturnType<TestIssuer['jwks']>['keys']>().toEqualTypeOf<PublicJwk[]>();
  });

  it('DPoP and certificate helpers have the contract signatures', () => {
    expectTypeOf<typeof generateDpopKey>().parameters.toEqualTypeOf<[TestAlgorithm?]>();
    expectTypeOf<typeof generateDpopKey>().returns.toEqualTypeOf<Promise<DpopKey>>();
    expectTypeOf<typeof createDpopProof>().parameters.toEqualTypeOf<[DpopProofOptions]>();
    expectTypeOf<typeof createDpopProof>().returns.toEqualTypeOf<string>();
    expectTypeOf<typeof thumbprint>().returns.toEqualTypeOf<string>();
    expectTypeOf<typeof generateTestCertificate>().returns.toEqualTypeOf<Promise<TestCertificate>>();
    expectTypeOf<TestCertificate['ca']>().toEqualTypeOf<TestCertificateAuthority>();
    expectTypeOf<typeof clientCertHeader>().parameters.toEqualTypeOf<[CertificateInput]>();
    expectTypeOf<TestCertificate>().toMatchTypeOf<CertificateInput>();
    expectTypeOf<{ dpop: DpopKey; certificate: TestCertificate }>().toMatchTypeOf<SignOptions>();
    expectTypeOf<{ method: 'GET'; url: string }>().not.toMatchTypeOf<DpopProofOptions>(); // key is required
  });

  it('options accept the documented values only', () => {
    expectTypeOf<{ alg: 'RS256' }>().toMatchTypeOf<TestIssuerOptions>();
    expectTypeOf<{ alg: 'HS256' }>().not.toMatchTypeOf<TestIssuerOptions>();
    expectTypeOf<VerifierConnection['audience']>().toEqualTypeOf<string | string[]>();
  });
});
