/** Options of `requireAuth()` and `requireScope()`: the shared options table (packages/adapter-conformance), at construction. */
import { ADAPTER_DEFAULTS } from '@gatehouse/core';
import { describeOptionCases } from '../../adapter-conformance/src/options-cases.js';
import { DEFAULTS, requireAuth, requireScope } from '../src/index.js';

describeOptionCases({
  at: 'construction',
  defaults: DEFAULTS,
  expectedDefaults: {
    optional: false,
    allowDelegation: true,
    handleErrors: true,
    mode: 'all',
    warmUp: false,
  },
  sharedDefaults: ADAPTER_DEFAULTS,
  badOption: { options: { optional: 'yes' }, message: '"optional" option must be a boolean' },
  mount(options) {
    const auth = requireAuth(options as never);
    return {
      requireScope: (scopes, scopeOptions) => requireScope(scopes as never, scopeOptions as never),
      ready: () => auth.ready(),
      close: async () => {},
    };
  },
});
