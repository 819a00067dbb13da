import { describe, expect, it } from 'vitest';
import { NoDelegation, Public, RequireScope } from '../src/index.js';
import { requirementsOf } from '../src/internal/route-metadata.js';

describe('@RequireScope() validates its requirement when the decorator runs', () => {
  it('refuses a requirement naming no scope, a bad mode, an unknown option and a non-string scope', () => {
    expect(() => RequireScope()).toThrow('"scopes" must name at least one scope');
    expect(() => RequireScope('')).toThrow(TypeError);
    expect(() => RequireScope('  ')).toThrow(TypeError);
    expect(() => RequireScope('a', { mode: 'some' } as never)).toThrow(
      '"mode" option must be "all" or "any"',
    );
    expect(() => RequireScope('a', { mod: 'any' } as never)).toThrow(
      'unknown option "mod" (did you mean "mode"?)',
    );
    expect(() => RequireScope('a', 42 as never)).toThrow(TypeError);
    expect(() => RequireScope('a', 'b c')).toThrow(TypeError);
  });
});

describe('route requirements', () => {
  class Base {
    handler() {}
  }
  RequireScope('base')(Base);
  class Controller extends Base {
    own() {}
    open() {}
  }
  RequireScope('class', { mode: 'any' })(Controller);
  const own = Object.getOwnPropertyDescriptor(Controller.prototype, 'own')!;
  RequireScope('x y')(Controller.prototype, 'own', own);
  RequireScope('z', { allowDelegation: false })(Controller.prototype, 'own', own);
  const open = Object.getOwnPropertyDescriptor(Controller.prototype, 'open')!;
  Public()(Controller.prototype, 'open', open);
  NoDelegation()(Controller.prototype, 'open', open);

  it('add up from the base class to the handler, in that order', () => {
    const route = requirementsOf(Controller, Controller.prototype.own);
    expect(route.public).toBe(false);
    expect(route.noDelegation).toBe(false);
    expect(route.scopes).toEqual([
      { scopes: ['base'], scopeMode: 'all', allowDelegation: true },
      { scopes: ['class'], scopeMode: 'any', allowDelegation: true },
      { scopes: ['x', 'y'], scopeMode: 'all', allowDelegation: true },
      { scopes: ['z'], scopeMode: 'all', allowDelegation: false },
    ]);
    expect(Object.isFrozen(route)).toBe(true);
  });

  it('keep each handler’s own marks, and the base class’ requirements on its own routes', () => {
    const open = requirementsOf(Controller, Controller.prototype.open);
    expect(open).toMatchObject({ public: true, noDelegation: true });
    expect(open.scopes).toHaveLength(2);
    expect(requirementsOf(Base, Base.prototype.handler).scopes).toEqual([
      { scopes: ['base'], scopeMode: 'all', allowDelegation: true },
    ]);
  });

  it('are merged once per route', () => {
    expect(requirementsOf(Controller, Controller.prototype.own)).toBe(
      requirementsOf(Controller, Controller.prototype.own),
    );
  });
});
