import { ADAPTER_DEFAULTS } from '@gatehouse/core';
import { describe, expect, it } from 'vitest';
import { DEFAULTS, GatehouseModule } from '../src/index.js';

const base = { issuer: 'https://id.example.com', audience: 'https://api.example.com' };

describe('DEFAULTS', () => {
  it('is frozen, protective by default: the shared adapter defaults and a global guard', () => {
    expect(Object.isFrozen(DEFAULTS)).toBe(true);
    expect(DEFAULTS).toEqual({ ...ADAPTER_DEFAULTS, globalGuard: true });
  });
});

describe('forRoot() validates its options when the module is defined', () => {
  it('refuses a mistyped option with the closest known name, the module’s own switch included', () => {
    expect(() =>
      GatehouseModule.forRoot({ ...base, jwksUrl: 'https://id.example.com/jwks' } as never),
    ).toThrow('unknown option "jwksUrl" (did you mean "jwksUri"?)');
    expect(() => GatehouseModule.forRoot({ ...base, globalGaurd: false } as never)).toThrow(
      'unknown option "globalGaurd" (did you mean "globalGuard"?)',
    );
  });

  it('names the bad option in a TypeError', () => {
    expect(() => GatehouseModule.forRoot({ ...base, globalGuard: 'no' } as never)).toThrow(
      '"globalGuard" option must be a boolean',
    );
    expect(() => GatehouseModule.forRoot({ ...base, optional: 'yes' } as never)).toThrow(
      '"optional" option must be a boolean',
    );
    expect(() => GatehouseModule.forRoot({ ...base, origin: 'https://api.example.com/v1' })).toThrow(
      '"origin" option must be an absolute http(s) origin',
    );
    expect(() => GatehouseModule.forRoot(null as never)).toThrow('options must be an object');
  });

  it('registers the guard for every route unless globalGuard is false', () => {
    const guards = (globalGuard?: boolean) =>
      (GatehouseModule.forRoot({ ...base, globalGuard }).providers ?? []).filter(
        (p) => typeof p === 'object' && 'provide' in p && p.provide === 'APP_GUARD',
      ).length;
    expect(guards()).toBe(1);
    expect(guards(true)).toBe(1);
    expect(guards(false)).toBe(0);
  });
});

describe('forRootAsync() validates what it can before the factory runs', () => {
  it('needs a factory, arrays for imports and inject, and known keys', () => {
    expect(() => GatehouseModule.forRootAsync({} as never)).toThrow('"useFactory" option must be a function');
    expect(() => GatehouseModule.forRootAsync({ useFactory: () => base, inject: 'Config' } as never)).toThrow(
      '"inject" option must be an array',
    );
    expect(() => GatehouseModule.forRootAsync({ useFactory: () => base, imports: {} } as never)).toThrow(
      '"imports" option must be an array',
    );
    expect(() => GatehouseModule.forRootAsync({ useFactory: () => base, injects: [] } as never)).toThrow(
      'unknown option "injects" (did you mean "inject"?)',
    );
    expect(() => GatehouseModule.forRootAsync({ useFactory: () => base, globalGuard: 1 } as never)).toThrow(
      '"globalGuard" option must be a boolean',
    );
  });
});
