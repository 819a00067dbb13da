/**
 * `@RequireRole()`: validated when the decorator runs, recorded apart from scopes, and checked after
 * them whatever the order of the decorators. What every adapter answers alike is proven by the
 * conformance table (rows A61–A62).
 */
import { describe, expect, it } from 'vitest';
import { RequireRole, RequireScope } from '../src/index.js';
import { requirementsOf } from '../src/internal/route-metadata.js';

describe('@RequireRole()', () => {
  it('refuses a requirement naming no role, a bad mode and an unknown option when the decorator runs', () => {
    expect(() => RequireRole()).toThrow('a role requirement must name at least one role');
    expect(() => RequireRole('')).toThrow(TypeError);
    expect(() => RequireRole('a', { mode: 'some' } as never)).toThrow('"mode" option must be "all" or "any"');
    expect(() => RequireRole('a', { mod: 'any' } as never)).toThrow(
      'unknown option "mod" (did you mean "mode"?)',
    );
  });

  it('records roles apart from scopes, class first, whatever the decorator order', () => {
    class Controller {
      handler() {}
    }
    RequireRole('staff')(Controller);
    const handler = Object.getOwnPropertyDescriptor(Controller.prototype, 'handler')!;
    // Decorators apply bottom-up: the role is recorded before the scope here.
    RequireRole('admin', 'order desk', { mode: 'any' })(Controller.prototype, 'handler', handler);
    RequireScope('read:orders')(Controller.prototype, 'handler', handler);
    const route = requirementsOf(Controller, Controller.prototype.handler);
    expect(route.scopes).toEqual([{ scopes: ['read:orders'], scopeMode: 'all', allowDelegation: true }]);
    expect(route.roles).toEqual([
      { roles: ['staff'], roleMode: 'all', allowDelegation: true },
      { roles: ['admin', 'order desk'], roleMode: 'any', allowDelegation: true },
    ]);
  });
});
