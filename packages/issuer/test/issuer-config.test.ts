/**
 * resolveConfig, the package's entry to config/'s resolveSettings: a ready store is passed through as
 * the same object and typed `Store`; anything without a store's shape is refused naming `store`.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { ConfigError } from '../src/errors.js';
import * as pkg from '../src/index.js';
import { type IssuerConfig, type ResolvedConfig, resolveConfig } from '../src/issuer-config.js';
import { openSqliteStore } from '../src/storage/drivers/sqlite.js';
import type { Store } from '../src/storage/store.js';

const base = { baseUrl: 'http://localhost:3001' };

describe('resolveConfig', () => {
  it('passes a ready store through, typed as Store', async () => {
    const store = openSqliteStore(':memory:');
    try {
      const config = resolveConfig({ ...base, store });
      expect(config.store).toBe(store);
      expectTypeOf(config.store).toEqualTypeOf<Store | undefined>();
      expectTypeOf<IssuerConfig['store']>().toEqualTypeOf<Store | undefined>();
      expectTypeOf<ResolvedConfig['store']>().toEqualTypeOf<Store | undefined>();
    } finally {
      await store.close();
    }
  });

  it('without a store, none; a value without the shape of a store is refused', () => {
    expect(resolveConfig(base).store).toBeUndefined();
    expect(() => resolveConfig({ ...base, store: { users: {} } as unknown as Store })).toThrow(ConfigError);
    expect(() => resolveConfig({ ...base, store: { users: {} } as unknown as Store })).toThrow(/"store"/);
  });

  it('is what the package exports', () => {
    expect(pkg.resolveConfig).toBe(resolveConfig);
  });
});
