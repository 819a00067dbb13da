import { type AuthError, KeysUnavailableError, MissingTokenError, UseDpopNonceError } from '@gatehouse/core';
import { HttpException } from '@nestjs/common';
import { describe, expect, it } from 'vitest';
import { GatehouseException } from '../src/index.js';

const context = { realm: 'api', dpop: { mode: 'allowed' as const, algs: 'ES256' } };

describe('GatehouseException', () => {
  it.each<[string, AuthError, Record<string, string>]>([
    [
      'a missing token',
      new MissingTokenError(context),
      { 'www-authenticate': 'Bearer realm="api", DPoP realm="api", algs="ES256"' },
    ],
    [
      'a DPoP nonce to use',
      new UseDpopNonceError('n-1', context),
      {
        'www-authenticate': new UseDpopNonceError('n-1', context).wwwAuthenticate,
        'dpop-nonce': 'n-1',
      },
    ],
    ['keys that cannot be fetched', new KeysUnavailableError(7, context), { 'retry-after': '7' }],
  ])('carries the status, body and headers of %s', (_name, error, headers) => {
    const exception = new GatehouseException(error);
    expect(exception).toBeInstanceOf(HttpException);
    expect(exception.getStatus()).toBe(error.status);
    expect(exception.getResponse()).toEqual(error.toJSON());
    expect(exception.headers).toEqual(headers);
    expect(exception.reason).toBe(error.reason);
    expect(exception.authError).toBe(error);
    expect(exception.cause).toBe(error);
    expect(exception.message).toBe(error.description);
    expect(exception.name).toBe('GatehouseException');
  });
});
