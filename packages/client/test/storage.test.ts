/** createMemoryStorage() and isClientStorage(). */
import { describe, expect, it } from 'vitest';
import { createMemoryStorage, isClientStorage } from '../src/index.js';

describe('createMemoryStorage', () => {
  it('stores, replaces and removes strings', () => {
    const storage = createMemoryStorage();
    expect(storage.getItem('a')).toBeNull();
    storage.setItem('a', '1');
    storage.setItem('a', '2');
    storage.setItem('b', '3');
    expect(storage.getItem('a')).toBe('2');
    expect(storage.size).toBe(2);
    storage.removeItem('a');
    expect(storage.getItem('a')).toBeNull();
    expect(storage.size).toBe(1);
  });

  it('is private to each instance', () => {
    const a = createMemoryStorage();
    a.setItem('k', 'v');
    expect(createMemoryStorage().getItem('k')).toBeNull();
  });
});

describe('isClientStorage', () => {
  it('accepts anything with the three methods, sync or async', () => {
    expect(isClientStorage(createMemoryStorage())).toBe(true);
    expect(
      isClientStorage({ getItem: async () => null, setItem: async () => {}, removeItem: async () => {} }),
    ).toBe(true);
  });
  it.each([
    null,
    undefined,
    'sessionStorage',
    {},
    { getItem() {}, setItem() {} },
    { getItem: 1, setItem() {}, removeItem() {} },
  ])('rejects %o', (value) => {
    expect(isClientStorage(value)).toBe(false);
  });
});
