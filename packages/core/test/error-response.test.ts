/**
 * `errorResponse()` (src/error-response.ts): the RFC 6750 Response of each kind of AuthError, with
 * the same status, headers and body bytes the Node adapters send.
 */
import { describe, expect, it } from 'vitest';
import {
  errorResponse,
  InsufficientScopeError,
  InvalidTokenError,
  KeysUnavailableError,
  MissingTokenError,
  UseDpopNonceError,
} from '../src/index.js';

const context = {
  realm: 'api',
  resourceMetadata: undefined,
  dpop: { mode: 'allowed' as const, algs: 'ES256' },
};

describe('errorResponse', () => {
  it.each([
    ['missing token', new MissingTokenError(context)],
    ['invalid token', new InvalidTokenError('expired', context)],
    ['insufficient scope', new InsufficientScopeError(['read:orders'], 'all', context)],
    ['use_dpop_nonce', new UseDpopNonceError('nonce-1', { ...context, scheme: 'dpop' })],
    ['keys unavailable', new KeysUnavailableError(3, context)],
  ])('%s: status, every header of the error, JSON body', async (_name, error) => {
    const res = errorResponse(error);
    expect(res.status).toBe(error.status);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    for (const [name, value] of Object.entries(error.headers)) expect(res.headers.get(name)).toBe(value);
    expect(res.headers.get('www-authenticate') ?? undefined).toBe(error.wwwAuthenticate);
    expect(await res.text()).toBe(JSON.stringify(error.toJSON()));
  });

  it('sends DPoP-Nonce with use_dpop_nonce and Retry-After with a 503', () => {
    expect(
      errorResponse(new UseDpopNonceError('n-2', { ...context, scheme: 'dpop' })).headers.get('dpop-nonce'),
    ).toBe('n-2');
    const unavailable = errorResponse(new KeysUnavailableError(7, context));
    expect(unavailable.status).toBe(503);
    expect(unavailable.headers.get('retry-after')).toBe('7');
  });
});
