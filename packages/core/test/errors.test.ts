/**
 * The error classes (src/errors.ts): status, OAuth code, reason, fixed descriptions, challenge and
 * response body per class, and the guarantees that make them safe to log and send.
 */
import { describe, expect, it } from 'vitest';
import {
  type AnyAuthError,
  AuthError,
  type AuthErrorReason,
  ForbiddenError,
  InsufficientScopeError,
  IntrospectionUnavailableError,
  InvalidDpopProofError,
  InvalidRequestError,
  InvalidTokenError,
  isAuthError,
  KeysUnavailableError,
  MissingTokenError,
  ReplayStoreUnavailableError,
  UseDpopNonceError,
} from '../src/index.js';

const CONTEXT = {
  realm: 'orders',
  resourceMetadata: 'https://api.test/.well-known/oauth-protected-resource',
};
const RM = `resource_metadata="${CONTEXT.resourceMetadata}"`;

const INVALID_TOKEN_REASONS = [
  'token_too_large',
  'malformed',
  'algorithm',
  'key_not_found',
  'signature',
  'typ',
  'issuer',
  'audience',
  'expired',
  'not_yet_valid',
  'too_old',
  'claim',
  'actor',
  'bound_token',
  'not_bound',
  'binding_required',
  'dpop_binding',
  'certificate',
  'inactive',
] as const;

const DPOP_PROOF_REASONS = [
  'dpop_missing',
  'dpop_multiple',
  'dpop_too_large',
  'dpop_malformed',
  'dpop_typ',
  'dpop_algorithm',
  'dpop_key',
  'dpop_signature',
  'dpop_htm',
  'dpop_htu',
  'dpop_iat',
  'dpop_jti',
  'dpop_ath',
  'dpop_replay',
] as const;

/** A verifier's context with DPoP allowed, for a request that used `scheme`. */
const DPOP_CONTEXT = (scheme: 'bearer' | 'dpop') => ({
  realm: 'orders',
  dpop: { mode: 'allowed' as const, algs: 'ES256 EdDSA' },
  scheme,
});

describe('InvalidTokenError', () => {
  it.each(INVALID_TOKEN_REASONS)('%s → 401 invalid_token with a fixed description', (reason) => {
    const error = new InvalidTokenError(reason, CONTEXT);
    expect(error).toBeInstanceOf(AuthError);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({
      name: 'InvalidTokenError',
      status: 401,
      statusCode: 401,
      code: 'invalid_token',
      reason,
      expose: true,
    });
    expect(error.message).toBe(error.description);
    expect(error.description).toMatch(/^[A-Z][\x20\x21\x23-\x5b\x5d-\x7e]+$/);
    expect(error.headers).toEqual({
      'www-authenticate': `Bearer realm="orders", error="invalid_token", error_description="${error.description}", ${RM}`,
    });
    expect(error.toJSON()).toEqual({ error: 'invalid_token', error_description: error.description });
    expect(JSON.parse(JSON.stringify(error))).toEqual(error.toJSON());
  });

  it('gives every reason its own description', () => {
    const descriptions = INVALID_TOKEN_REASONS.map((reason) => new InvalidTokenError(reason).description);
    expect(new Set(descriptions).size).toBe(INVALID_TOKEN_REASONS.length);
  });

  it('carries the claim name, never its value', () => {
    const error = new InvalidTokenError('claim', CONTEXT, 'client_id');
    expect(error.claim).toBe('client_id');
    expect(new InvalidTokenError('claim').claim).toBeUndefined();
    expect(JSON.stringify(error)).not.toContain('client_id');
  });

  it('has a challenge without realm when no context is given', () => {
    const error = new InvalidTokenError('expired');
    expect(error.wwwAuthenticate).toBe(
      `Bearer error="invalid_token", error_description="${error.description}"`,
    );
  });
});

describe('InvalidRequestError', () => {
  it.each(['multiple_tokens', 'bad_syntax'] as const)('%s → 400 invalid_request', (reason) => {
    const error = new InvalidRequestError(reason, CONTEXT);
    expect(error).toMatchObject({
      name: 'InvalidRequestError',
      status: 400,
      code: 'invalid_request',
      reason,
    });
    expect(error.headers['www-authenticate']).toBe(
      `Bearer realm="orders", error="invalid_request", error_description="${error.description}", ${RM}`,
    );
    expect(error.toJSON()).toEqual({ error: 'invalid_request', error_description: error.description });
  });
});

describe('MissingTokenError', () => {
  it('→ 401 with a bare challenge (realm and metadata, no error attribute)', () => {
    const error = new MissingTokenError(CONTEXT);
    expect(error).toMatchObject({
      name: 'MissingTokenError',
      status: 401,
      code: undefined,
      reason: 'missing_token',
    });
    expect(error.headers).toEqual({ 'www-authenticate': `Bearer realm="orders", ${RM}` });
    expect(error.headers['www-authenticate']).not.toContain('error');
    expect(error.toJSON()).toEqual({ error: 'unauthorized', error_description: error.description });
  });

  it('without context still sends a Bearer challenge', () => {
    expect(new MissingTokenError().headers).toEqual({ 'www-authenticate': 'Bearer' });
  });
});

describe('InsufficientScopeError', () => {
  it('→ 403 insufficient_scope naming the required scopes', () => {
    const required = ['read:orders', 'write:orders'];
    const error = new InsufficientScopeError(required, 'any', CONTEXT);
    required.push('mutated');
    expect(error).toMatchObject({
      name: 'InsufficientScopeError',
      status: 403,
      code: 'insufficient_scope',
      mode: 'any',
    });
    expect(error.requiredScopes).toEqual(['read:orders', 'write:orders']);
    expect(Object.isFrozen(error.requiredScopes)).toBe(true);
    expect(error.headers['www-authenticate']).toBe(
      `Bearer realm="orders", error="insufficient_scope", error_description="${error.description}", scope="read:orders write:orders", ${RM}`,
    );
    expect(error.toJSON()).toEqual({ error: 'insufficient_scope', error_description: error.description });
  });
});

describe('ForbiddenError', () => {
  it('→ 403 access_denied for a delegated token where delegation is off', () => {
    const error = new ForbiddenError('delegation_not_allowed', CONTEXT);
    expect(error).toMatchObject({
      name: 'ForbiddenError',
      status: 403,
      code: 'access_denied',
      reason: 'delegation_not_allowed',
    });
    expect(error.headers['www-authenticate']).toContain('error="access_denied"');
    expect(error.toJSON()).toEqual({ error: 'access_denied', error_description: error.description });
  });
});

describe('KeysUnavailableError', () => {
  it('→ 503 with Retry-After and no WWW-Authenticate (fail closed, never blame the client)', () => {
    const error = new KeysUnavailableError(2.2, CONTEXT);
    expect(error).toMatchObject({
      name: 'KeysUnavailableError',
      status: 503,
      code: undefined,
      reason: 'jwks_unavailable',
    });
    expect(error.retryAfter).toBe(3);
    expect(error.wwwAuthenticate).toBeUndefined();
    expect(error.headers).toEqual({ 'retry-after': '3' });
    expect(error.toJSON()).toEqual({
      error: 'temporarily_unavailable',
      error_description: error.description,
    });
  });

  it.each([
    [0, 1],
    [-5, 1],
    [0.001, 1],
    [1, 1],
    [29.5, 30],
  ])('retryAfter(%d) → %d whole seconds, at least 1', (input, seconds) => {
    expect(new KeysUnavailableError(input).retryAfter).toBe(seconds);
  });

  it('keeps the cause for diagnostics but out of the serialized form', () => {
    const cause = new Error('connect ECONNREFUSED 10.0.0.1:443');
    const error = new KeysUnavailableError(1, CONTEXT, { cause });
    expect(error.cause).toBe(cause);
    expect(Object.keys(error)).not.toContain('cause');
    expect(JSON.stringify(error)).not.toContain('ECONNREFUSED');
    expect(new KeysUnavailableError(1).cause).toBeUndefined();
  });
});

describe('InvalidDpopProofError', () => {
  it.each(DPOP_PROOF_REASONS)('%s → 401 invalid_dpop_proof in the DPoP challenge', (reason) => {
    const error = new InvalidDpopProofError(reason, DPOP_CONTEXT('bearer'));
    expect(error).toMatchObject({
      name: 'InvalidDpopProofError',
      status: 401,
      code: 'invalid_dpop_proof',
      reason,
    });
    expect(error.headers).toEqual({
      'www-authenticate': `Bearer realm="orders", DPoP realm="orders", error="invalid_dpop_proof", error_description="${error.description}", algs="ES256 EdDSA"`,
    });
    expect(error.toJSON()).toEqual({ error: 'invalid_dpop_proof', error_description: error.description });
  });

  it('gives every reason its own description', () => {
    const texts = DPOP_PROOF_REASONS.map((r) => new InvalidDpopProofError(r).description);
    expect(new Set(texts).size).toBe(texts.length);
  });
});

describe('UseDpopNonceError', () => {
  it('→ 401 use_dpop_nonce with the nonce in DPoP-Nonce (RFC 9449 §9)', () => {
    const error = new UseDpopNonceError('n0nce', {
      ...DPOP_CONTEXT('dpop'),
      dpop: { mode: 'required', algs: 'ES256' },
    });
    expect(error).toMatchObject({
      status: 401,
      code: 'use_dpop_nonce',
      reason: 'dpop_nonce',
      nonce: 'n0nce',
    });
    expect(error.headers).toEqual({
      'www-authenticate': `DPoP realm="orders", error="use_dpop_nonce", error_description="${error.description}", algs="ES256"`,
      'dpop-nonce': 'n0nce',
    });
  });
});

describe('ReplayStoreUnavailableError', () => {
  it('→ 503 with Retry-After: 1 and no challenge', () => {
    const cause = new Error('ECONNREFUSED 127.0.0.1:6379');
    const error = new ReplayStoreUnavailableError(DPOP_CONTEXT('dpop'), { cause });
    expect(error).toMatchObject({ status: 503, code: undefined, reason: 'replay_store_unavailable' });
    expect(error.headers).toEqual({ 'retry-after': '1' });
    expect(error.toJSON()).toEqual({
      error: 'temporarily_unavailable',
      error_description: error.description,
    });
    expect(error.cause).toBe(cause);
    expect(JSON.stringify(error)).not.toContain('6379');
  });
});

describe('IntrospectionUnavailableError', () => {
  it('E15: → 503 with Retry-After, no challenge, temporarily_unavailable; the cause stays out of the body', () => {
    const cause = new Error('introspection failed: HTTP 500');
    const error = new IntrospectionUnavailableError(4.2, CONTEXT, { cause });
    expect(error).toBeInstanceOf(AuthError);
    expect(isAuthError(error)).toBe(true);
    expect([error.status, error.code, error.reason, error.retryAfter]).toEqual([
      503,
      undefined,
      'introspection_unavailable',
      5,
    ]);
    expect(error.headers).toEqual({ 'retry-after': '5' });
    expect(error.wwwAuthenticate).toBeUndefined();
    expect(error.toJSON()).toEqual({
      error: 'temporarily_unavailable',
      error_description: 'The access token cannot be introspected right now; try again later',
    });
    expect(JSON.stringify(error)).not.toContain('HTTP 500');
    expect((error as { cause?: unknown }).cause).toBe(cause);
  });

  it('E15: an inactive token is 401 invalid_token with a fixed description in a clean challenge', () => {
    const error = new InvalidTokenError('inactive', { realm: 'a"\r\nb' });
    expect([error.status, error.code]).toEqual([401, 'invalid_token']);
    expect(error.headers['www-authenticate']).toBe(
      'Bearer realm="ab", error="invalid_token", error_description="The access token is not active (revoked, expired or unknown to its issuer)"',
    );
  });
});

describe('challenges follow the DPoP mode and the request scheme', () => {
  it('a token error of a DPoP request goes in the DPoP challenge; of a Bearer request in the Bearer one', () => {
    const dpop = new InvalidTokenError('expired', DPOP_CONTEXT('dpop'));
    expect(dpop.headers['www-authenticate']).toBe(
      `Bearer realm="orders", DPoP realm="orders", error="invalid_token", error_description="${dpop.description}", algs="ES256 EdDSA"`,
    );
    const bearer = new InvalidTokenError('expired', DPOP_CONTEXT('bearer'));
    expect(bearer.headers['www-authenticate']).toBe(
      `Bearer realm="orders", error="invalid_token", error_description="${bearer.description}", DPoP realm="orders", algs="ES256 EdDSA"`,
    );
  });

  it('mode required sends the DPoP challenge only; no DPoP context sends Bearer only', () => {
    const required = { realm: 'orders', dpop: { mode: 'required' as const, algs: 'ES256' } };
    expect(new MissingTokenError(required).headers['www-authenticate']).toBe(
      'DPoP realm="orders", algs="ES256"',
    );
    expect(new MissingTokenError({ realm: 'orders' }).headers['www-authenticate']).toBe(
      'Bearer realm="orders"',
    );
  });
});

describe('isAuthError', () => {
  it('narrows every error class and nothing else', () => {
    const all: AnyAuthError[] = [
      new InvalidTokenError('malformed'),
      new InvalidRequestError('bad_syntax'),
      new MissingTokenError(),
      new InsufficientScopeError(['a'], 'all'),
      new ForbiddenError('delegation_not_allowed'),
      new KeysUnavailableError(1),
    ];
    for (const error of all) expect(isAuthError(error)).toBe(true);
    for (const other of [
      new Error('x'),
      new TypeError('x'),
      { status: 401, code: 'invalid_token' },
      null,
      undefined,
      'invalid_token',
    ]) {
      expect(isAuthError(other)).toBe(false);
    }
  });

  it('discriminates on reason', () => {
    const error: unknown = new InvalidTokenError('expired');
    const reason: AuthErrorReason | undefined = isAuthError(error) ? error.reason : undefined;
    expect(reason).toBe('expired');
  });
});

describe('safety of every error', () => {
  it('never includes anything but fixed text, whatever context values are given', () => {
    const context = { realm: 'a"\r\nb', resourceMetadata: 'https://x.test/"\\' };
    const errors: AuthError[] = [
      ...INVALID_TOKEN_REASONS.map((reason) => new InvalidTokenError(reason, context)),
      new InvalidRequestError('multiple_tokens', context),
      new MissingTokenError(context),
      new InsufficientScopeError(['s"\n'], 'all', context),
      new ForbiddenError('delegation_not_allowed', context),
    ];
    for (const error of errors) {
      for (const value of Object.values(error.headers)) expect(value).not.toMatch(/[\r\n\\]|""|[^=, ]"[^,]/);
      expect(error.headers['www-authenticate']).toMatch(/^Bearer realm="ab"/);
    }
  });

  it('stack traces start with the class name and the fixed description', () => {
    const error = new InvalidTokenError('signature');
    expect(error.stack?.split('\n')[0]).toBe(`InvalidTokenError: ${error.description}`);
  });
});
