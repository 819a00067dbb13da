import { ADAPTER_DEFAULTS } from '@gatehouse/core';
import { describe, expect, it } from 'vitest';
import { DEFAULTS, requireAuth, requireScope } from '../src/index.js';

const base = { issuer: 'https://id.example.com', audience: 'https://api.example.com' };

describe('DEFAULTS', () => {
  it('is frozen, protective by default, and the shared adapter defaults', () => {
    expect(Object.isFrozen(DEFAULTS)).toBe(true);
    expect(DEFAULTS).toEqual({ optional: false, allowDelegation: true, handleErrors: true, mode: 'all' });
    expect(DEFAULTS).toBe(ADAPTER_DEFAULTS);
  });
});

describe('option validation at construction', () => {
  it('names the bad option in a TypeError', () => {
    expect(() => requireAuth({ ...base, optional: 'yes' } as never)).toThrow(
      '"optional" option must be a boolean',
    );
    expect(() => requireAuth({ ...base, clockTolerance: 301 })).toThrow(TypeError);
    expect(() => requireScope('a', { mode: 'some' } as never)).toThrow(
      '"mode" option must be "all" or "any"',
    );
    expect(() => requireScope([42] as never)).toThrow(TypeError);
  });
});
