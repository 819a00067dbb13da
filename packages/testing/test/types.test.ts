import type { HttpHandler } from 'msw';
import { describe, expectTypeOf, it } from 'vitest';
import type {
  ActorClaim,
  BadTokenFactory,
  IssuerServer,
  OutageKind,
  PublicJwk,
  SignOptions,
  TestAlgorithm,
  TestIssuer,
  TestIssuerOptions,
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

  it('options accept the documented values only', () => {
    expectTypeOf<{ alg: 'RS256' }>().toMatchTypeOf<TestIssuerOptions>();
    expectTypeOf<{ alg: 'HS256' }>().not.toMatchTypeOf<TestIssuerOptions>();
    expectTypeOf<VerifierConnection['audience']>().toEqualTypeOf<string | string[]>();
  });
});
