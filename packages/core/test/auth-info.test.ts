import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createAuthInfo } from '../src/auth-info.js';

const checked = {
  issuer: 'https://id.test',
  audience: ['https://api.test'],
  exp: 2_000_000_000,
  actor: undefined,
  validUntil: 0,
};

describe('createAuthInfo', () => {
  it('is frozen, with frozen claims and lists', () => {
    const info = createAuthInfo('t.o.k', { sub: 's', scope: 'a b', exp: 2_000_000_000 }, checked);
    expect(Object.isFrozen(info)).toBe(true);
    expect(Object.isFrozen(info.claims)).toBe(true);
    expect(Object.isFrozen(info.scopes)).toBe(true);
    expect(Object.isFrozen(info.audience)).toBe(true);
  });

  it('falls back to azp for the client id', () => {
    expect(createAuthInfo('t', { azp: 'web', exp: 1 }, checked).clientId).toBe('web');
    expect(createAuthInfo('t', { client_id: 'c', azp: 'web', exp: 1 }, checked).clientId).toBe('c');
  });

  it('keeps the raw token out of JSON and inspect output', () => {
    const info = createAuthInfo('secret.token.value', { sub: 's', exp: 1 }, checked);
    expect(info.token).toBe('secret.token.value');
    expect(JSON.stringify(info)).not.toContain('secret.token.value');
    expect(inspect(info)).not.toContain('secret.token.value');
    expect(inspect(info)).toContain('[redacted]');
  });

  it('answers scope questions', () => {
    const info = createAuthInfo('t', { scope: 'read:orders write:orders', exp: 1 }, checked);
    expect(info.hasScope()).toBe(true);
    expect(info.hasScope('read:orders', 'write:orders')).toBe(true);
    expect(info.hasScope('read:order')).toBe(false);
    expect(info.hasAnyScope('x', 'write:orders')).toBe(true);
    expect(info.hasAnyScope('x')).toBe(false);
  });
});
