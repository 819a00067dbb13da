/** Frozen lists searched through an unfrozen copy (src/internal/frozen-list.ts). */
import { describe, expect, it } from 'vitest';
import { frozenList, isMarked, searchable } from '../../src/internal/frozen-list.js';
import { hasRoles, parseRoles, toRoleList } from '../../src/roles.js';
import { hasScopes, parseScopes, toScopeList } from '../../src/scopes.js';

describe('frozenList', () => {
  it('freezes the list and searches an unfrozen copy of the same entries', () => {
    const list = frozenList(['read:orders', 'write:orders']);
    expect(Object.isFrozen(list)).toBe(true);
    expect(() => (list as string[]).push('admin')).toThrow(TypeError);
    const copy = searchable(list);
    expect(copy).not.toBe(list);
    expect(Object.isFrozen(copy)).toBe(false);
    expect(copy).toEqual(['read:orders', 'write:orders']);
  });

  it('hides the copy and the mark from every ordinary view of the list', () => {
    const mark = Symbol('test');
    const list = frozenList(['a', 'b'], mark);
    expect(Object.keys(list)).toEqual(['0', '1']);
    expect(JSON.stringify(list)).toBe('["a","b"]');
    expect([...list]).toEqual(['a', 'b']);
    expect({ ...list }).toEqual({ 0: 'a', 1: 'b' });
    expect(list).toStrictEqual(['a', 'b']);
  });

  it('searches any other list as it is', () => {
    const plain = ['a'];
    expect(searchable(plain)).toBe(plain);
    const frozen = Object.freeze(['a']);
    expect(searchable(frozen)).toBe(frozen);
  });

  it('marks only the lists made with the mark', () => {
    const mark = Symbol('test');
    expect(isMarked(frozenList(['a'], mark), mark)).toBe(true);
    expect(isMarked(frozenList(['a']), mark)).toBe(false);
    expect(isMarked(frozenList(['a'], Symbol('other')), mark)).toBe(false);
    expect(isMarked(Object.freeze(['a']), mark)).toBe(false);
    expect(isMarked('a', mark)).toBe(false);
    expect(isMarked(undefined, mark)).toBe(false);
  });
});

describe('scope and role checks on frozen lists', () => {
  it('answers the same for lists made here and lists made elsewhere, in both modes', () => {
    const granted = parseScopes({ scope: 'read:orders write:orders' });
    const required = toScopeList('write:orders read:orders');
    for (const have of [
      granted,
      ['read:orders', 'write:orders'],
      Object.freeze(['read:orders', 'write:orders']),
    ])
      for (const need of [required, ['write:orders', 'read:orders']]) {
        expect(hasScopes(have, need, 'all')).toBe(true);
        expect(hasScopes(have, need, 'any')).toBe(true);
        expect(hasScopes(have, [...need, 'admin'], 'all')).toBe(false);
        expect(hasScopes(have, [...need, 'admin'], 'any')).toBe(true);
        expect(hasScopes(have, toScopeList('admin'), 'any')).toBe(false);
      }
    expect(hasRoles(parseRoles({ roles: ['auditor'] }) ?? [], toRoleList(['admin', 'auditor']), 'any')).toBe(
      true,
    );
    expect(hasRoles(parseRoles({ roles: ['auditor'] }) ?? [], toRoleList(['admin', 'auditor']), 'all')).toBe(
      false,
    );
  });

  it('never takes a validated role list for a validated scope list (a role may hold a space)', () => {
    const roles = toRoleList(['order desk']);
    expect(toRoleList(roles)).toBe(roles);
    expect(() => toScopeList(roles)).toThrow(TypeError);
    const scopes = toScopeList('read:orders');
    expect(toScopeList(scopes)).toBe(scopes);
  });
});
