/** Type-level checks of the public result and option types. */
import { describe, expectTypeOf, it } from 'vitest';
import type { Client, ExchangeRequest, ExchangeResult, IdTokenClaims, SignInOptions } from '../src/index.js';

describe('public types', () => {
  it('describe what the client returns', () => {
    expectTypeOf<Client['getAccessToken']>().returns.resolves.toEqualTypeOf<string>();
    expectTypeOf<Client['signIn']>().returns.resolves.toEqualTypeOf<URL>();
    expectTypeOf<Client['exchangeSubjectToken']>().returns.resolves.toEqualTypeOf<ExchangeResult>();
    expectTypeOf<Client['getIdTokenClaims']>().returns.resolves.toEqualTypeOf<IdTokenClaims | undefined>();
    expectTypeOf<ExchangeResult['expiresAt']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<IdTokenClaims['sub']>().toEqualTypeOf<string>();
    expectTypeOf<SignInOptions['redirect']>().toEqualTypeOf<boolean | undefined>();
    expectTypeOf<ExchangeRequest>().toHaveProperty('actorToken');
    // Results are read-only.
    expectTypeOf<ExchangeResult>().toEqualTypeOf<Readonly<ExchangeResult>>();
  });
});
