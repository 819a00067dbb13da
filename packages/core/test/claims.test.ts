import { describe, expect, it } from 'vitest';
import { checkClaims, checkType } from '../src/claims.js';
import { InvalidTokenError, resolveOptions, type VerifierOptions } from '../src/index.js';

const ISS = 'https://issuer.test/oidc';
const AUD = 'https://api.test/orders';
const NOW = 1_800_000_000;
const ctx = { realm: 'api' };

const opts = (patch: Partial<VerifierOptions> = {}) =>
  resolveOptions({ issuer: ISS, audience: AUD, jwksUri: 'https://issuer.test/jwks', ...patch });

const payload = (patch: Record<string, unknown> = {}) => ({
  iss: ISS,
  aud: AUD,
  sub: 'user-1',
  client_id: 'app',
  jti: 'j1',
  iat: NOW - 10,
  exp: NOW + 300,
  ...patch,
});

function failure(
  p: Record<string, unknown>,
  patch: Partial<VerifierOptions> = {},
): { reason: string; claim?: string } {
  try {
    checkClaims(p, opts(patch), NOW, ctx);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidTokenError);
    const e = error as InvalidTokenError;
    return e.claim === undefined ? { reason: e.reason } : { reason: e.reason, claim: e.claim };
  }
  throw new Error('expected the claims to be rejected');
}

describe('checkClaims', () => {
  it('accepts valid claims and derives issuer, audience, expiry', () => {
    const r = checkClaims(payload({ aud: ['https://other', AUD] }), opts(), NOW, ctx);
    expect(r.issuer).toBe(ISS);
    expect(r.audience).toEqual(['https://other', AUD]);
    expect(r.exp).toBe(NOW + 300);
    expect(r.validUntil).toBe(NOW + 305);
  });

  // A37: iss that differs in any way.
  it.each([`${ISS}/`, ISS.toUpperCase(), ISS.replace('https', 'http'), [ISS], undefined, 42, ''])(
    'rejects iss %j',
    (iss) => {
      expect(failure(payload({ iss }))).toEqual({ reason: 'issuer' });
    },
  );

  it('accepts any configured issuer exactly', () => {
    expect(() =>
      checkClaims(payload({ iss: 'https://b.test' }), opts({ issuer: [ISS, 'https://b.test'] }), NOW, ctx),
    ).not.toThrow();
  });

  // A38: missing, another resource, array without us, prefix/substring.
  it.each([
    undefined,
    'https://api.test/other',
    ['https://a', 'https://b'],
    `${AUD}.evil`,
    'https://api.test/order',
    `${AUD}/`,
    [],
    [AUD, 42],
    42,
  ])('rejects aud %j', (aud) => {
    expect(failure(payload({ aud }))).toEqual({ reason: 'audience' });
  });

  // A39: exp missing.
  it('requires exp', () => {
    const p = payload();
    delete (p as Record<string, unknown>).exp;
    expect(failure(p)).toEqual({ reason: 'claim', claim: 'exp' });
  });

  // A40: boundaries around the tolerance.
  it('applies the clock tolerance at the exp and nbf boundaries', () => {
    const tol = 5;
    expect(failure(payload({ exp: NOW - tol - 1 }))).toEqual({ reason: 'expired' });
    expect(failure(payload({ exp: NOW - tol }))).toEqual({ reason: 'expired' });
    expect(() => checkClaims(payload({ exp: NOW - tol + 1 }), opts(), NOW, ctx)).not.toThrow();
    expect(failure(payload({ nbf: NOW + tol + 1 }))).toEqual({ reason: 'not_yet_valid' });
    expect(() => checkClaims(payload({ nbf: NOW + tol }), opts(), NOW, ctx)).not.toThrow();
  });

  // A41: NumericDates of the wrong type, or Infinity (JSON 1e400).
  it.each(['exp', 'nbf', 'iat'])('rejects %s given as a string, boolean, Infinity or NaN', (name) => {
    for (const value of [
      String(NOW + 100),
      true,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
      Number.NaN,
      null,
    ]) {
      expect(failure(payload({ [name]: value }))).toEqual({ reason: 'claim', claim: name });
    }
  });

  it('enforces maxTokenAge from iat, and requires iat with it', () => {
    expect(failure(payload({ iat: NOW - 3600 }), { maxTokenAge: 600 })).toEqual({ reason: 'too_old' });
    const p = payload();
    delete (p as Record<string, unknown>).iat;
    expect(failure(p, { maxTokenAge: 600 })).toEqual({ reason: 'claim', claim: 'iat' });
    const r = checkClaims(payload({ iat: NOW - 400 }), opts({ maxTokenAge: 600 }), NOW, ctx);
    expect(r.validUntil).toBe(NOW - 400 + 600 + 5);
  });

  it('E11: an iat in the future beyond the tolerance fails whenever iat is checked (maxTokenAge, strict)', () => {
    for (const patch of [{ maxTokenAge: 600 }, { strict: true }, { strict: true, maxTokenAge: 600 }]) {
      expect(failure(payload({ iat: NOW + 6 }), patch)).toEqual({ reason: 'not_yet_valid', claim: 'iat' });
      expect(failure(payload({ iat: NOW + 3600 }), patch)).toEqual({ reason: 'not_yet_valid', claim: 'iat' });
      // Within the tolerance (issuer clock slightly ahead): accepted.
      expect(() => checkClaims(payload({ iat: NOW + 5 }), opts(patch), NOW, ctx)).not.toThrow();
    }
    // Not checked without maxTokenAge or strict: only its type is.
    expect(() => checkClaims(payload({ iat: NOW + 3600 }), opts(), NOW, ctx)).not.toThrow();
    expect(failure(payload({ iat: NOW + 6 }), { clockTolerance: 0, maxTokenAge: 600 })).toEqual({
      reason: 'not_yet_valid',
      claim: 'iat',
    });
  });

  it('E12: nbf and auth_time that are not NumericDates fail; auth_time in the future beyond the tolerance fails', () => {
    for (const value of [String(NOW), true, Number.POSITIVE_INFINITY, Number.NaN, null, {}, [NOW]]) {
      expect(failure(payload({ nbf: value }))).toEqual({ reason: 'claim', claim: 'nbf' });
      expect(failure(payload({ auth_time: value }))).toEqual({ reason: 'claim', claim: 'auth_time' });
    }
    expect(failure(payload({ auth_time: NOW + 6 }))).toEqual({ reason: 'claim', claim: 'auth_time' });
    expect(() => checkClaims(payload({ auth_time: NOW + 5 }), opts(), NOW, ctx)).not.toThrow();
    expect(() => checkClaims(payload({ auth_time: NOW - 86_400 }), opts(), NOW, ctx)).not.toThrow();
  });

  // A43: strict requires sub, client_id, iat, jti.
  it.each(['sub', 'client_id', 'iat', 'jti'])('strict mode requires %s', (name) => {
    const p = payload();
    delete (p as Record<string, unknown>)[name];
    expect(failure(p, { strict: true })).toEqual({ reason: 'claim', claim: name });
    expect(() => checkClaims(p, opts(), NOW, ctx)).not.toThrow();
  });

  it('rejects identity claims of the wrong type', () => {
    expect(failure(payload({ sub: 42 }))).toEqual({ reason: 'claim', claim: 'sub' });
    expect(failure(payload({ client_id: ['a'] }))).toEqual({ reason: 'claim', claim: 'client_id' });
  });

  // A46: malformed act.
  it('rejects a malformed act and never reads may_act as the actor', () => {
    expect(failure(payload({ act: 'support-7' }))).toEqual({ reason: 'actor' });
    expect(failure(payload({ act: { iss: 'x' } }))).toEqual({ reason: 'actor' });
    const r = checkClaims(payload({ may_act: { sub: 'support-7' } }), opts(), NOW, ctx);
    expect(r.actor).toBeUndefined();
  });

  it('runs configured claim checks: equals, includes, predicate', () => {
    const claims = {
      tenant: { equals: 'acme' },
      groups: { includes: 'admins' },
      level: (v: unknown) => typeof v === 'number' && v >= 2,
    } as const;
    expect(() =>
      checkClaims(payload({ tenant: 'acme', groups: ['admins', 'x'], level: 3 }), opts({ claims }), NOW, ctx),
    ).not.toThrow();
    expect(failure(payload({ tenant: 'evil', groups: ['admins'], level: 3 }), { claims })).toEqual({
      reason: 'claim',
      claim: 'tenant',
    });
    expect(failure(payload({ tenant: 'acme', groups: 'adminsX', level: 3 }), { claims })).toEqual({
      reason: 'claim',
      claim: 'groups',
    });
    expect(failure(payload({ tenant: 'acme', groups: ['admins'], level: 1 }), { claims })).toEqual({
      reason: 'claim',
      claim: 'level',
    });
    const throwing = {
      x: () => {
        throw new Error('boom');
      },
    };
    expect(failure(payload(), { claims: throwing })).toEqual({ reason: 'claim', claim: 'x' });
  });

  it('checks in order: iss before aud before exp', () => {
    expect(failure(payload({ iss: 'x', aud: 'y', exp: 1 }))).toEqual({ reason: 'issuer' });
    expect(failure(payload({ aud: 'y', exp: 1 }))).toEqual({ reason: 'audience' });
  });
});

// A17: typ.
describe('checkType', () => {
  it.each(['at+jwt', 'AT+JWT', 'application/at+jwt', 'Application/AT+JWT'])(
    'accepts %s in every mode',
    (typ) => {
      expect(checkType(typ, true)).toBe(true);
      expect(checkType(typ, false)).toBe(true);
    },
  );
  it('strict refuses absent and JWT', () => {
    expect(checkType(undefined, true)).toBe(false);
    expect(checkType('JWT', true)).toBe(false);
    expect(checkType(undefined, false)).toBe(true);
    expect(checkType('JWT', false)).toBe(true);
  });
  it.each(['dpop+jwt', 'logout+jwt', 'secevent+jwt', 'application/jwt+x', 'jose', ''])(
    'refuses %s in every mode',
    (typ) => {
      expect(checkType(typ, true)).toBe(false);
      expect(checkType(typ, false)).toBe(false);
    },
  );
});
