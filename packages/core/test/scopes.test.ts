import { describe, expect, it } from 'vitest';
import { hasScopes, parseScopes, toScopeList } from '../src/index.js';

describe('parseScopes', () => {
  it('splits the scope string on spaces', () => {
    expect(parseScopes({ scope: 'read:orders  write:orders' })).toEqual(['read:orders', 'write:orders']);
  });
  it('reads an scp array when there is no scope', () => {
    expect(parseScopes({ scp: ['a', 'b'] })).toEqual(['a', 'b']);
  });
  // Catalogue A44: a scope that is an array or number counts as no scope.
  it.each([[['read:orders']], [42], [null], [{ 'read:orders': true }]])(
    'grants nothing for scope %j',
    (scope) => {
      expect(parseScopes({ scope })).toEqual([]);
    },
  );
  it('ignores scp when it holds non-strings', () => {
    expect(parseScopes({ scp: ['a', 1] })).toEqual([]);
  });
});

describe('hasScopes', () => {
  // Catalogue A44: whole, case-sensitive entries only.
  it.each([
    [['read:usersX'], ['read:users']],
    [['READ:users'], ['read:users']],
    [['read'], ['read:users']],
    [['read:users:extra'], ['read:users']],
  ])('A44: %j does not satisfy %j', (granted, required) => {
    expect(hasScopes(granted, required)).toBe(false);
    // The same through the lists core makes (searched through their unfrozen copies), in both modes.
    const made = parseScopes({ scope: granted.join(' ') });
    for (const mode of ['all', 'any'] as const)
      expect(hasScopes(made, toScopeList(required.join(' ')), mode)).toBe(false);
  });
  it('all vs any', () => {
    expect(hasScopes(['a'], ['a', 'b'], 'all')).toBe(false);
    expect(hasScopes(['a'], ['a', 'b'], 'any')).toBe(true);
    expect(hasScopes([], [], 'all')).toBe(true);
  });
});

describe('toScopeList', () => {
  it('normalizes strings and lists', () => {
    expect(toScopeList('a b')).toEqual(['a', 'b']);
    expect(toScopeList(['a'])).toEqual(['a']);
    expect(toScopeList(undefined)).toEqual([]);
  });
  it('throws rather than silently requiring nothing', () => {
    expect(() => toScopeList([42] as never)).toThrow(TypeError);
    expect(() => toScopeList(['a b'])).toThrow(TypeError);
    expect(() => toScopeList({} as never)).toThrow(TypeError);
  });
});

describe('toScopeList reuse of validated lists', () => {
  it('returns its own frozen output unchanged, and still validates any other list', () => {
    const once = toScopeList('read:orders write:orders');
    expect(Object.isFrozen(once)).toBe(true);
    expect(toScopeList(once)).toBe(once);
    const lookalike = Object.freeze(['read:orders', 'bad scope']);
    expect(() => toScopeList(lookalike)).toThrow(TypeError);
  });
});
