/**
 * Options of the plugin: the shared options table (packages/adapter-conformance), at registration, and
 * Fastify's own register options.
 */
import Fastify from 'fastify';
import { expect, it } from 'vitest';
import { describeOptionCases, OPTIONS_BASE } from '../../adapter-conformance/src/options-cases.js';
import gatehouse, { DEFAULTS } from '../src/index.js';

const base = OPTIONS_BASE;

describeOptionCases(
  {
    at: 'registration',
    defaults: DEFAULTS,
    expectedDefaults: { allowDelegation: true, handleErrors: true, mode: 'all', warmUp: false },
    badOption: { options: { handleErrors: 1 }, message: '"handleErrors" option must be a boolean' },
    async mount(options) {
      const app = Fastify();
      app.register(gatehouse, options as never);
      try {
        await app.ready();
      } catch (error) {
        await app.close();
        throw error;
      }
      return {
        requireScope: (scopes, scopeOptions) => app.requireScope(scopes as never, scopeOptions as never),
        ready: async () => {},
        close: () => app.close(),
      };
    },
  },
  {
    before: 'a misconfiguration is never silent',
    group: "Fastify's own register options",
    tests() {
      it('accepts prefix, logLevel and logSerializers beside its own options, and still refuses unknown ones', async () => {
        const app = Fastify();
        await app.register(gatehouse, {
          ...base,
          prefix: '/api',
          logLevel: 'warn',
          logSerializers: { req: () => 'r' },
        });
        app.get('/api/data', { onRequest: app.requireAuth }, async () => ({ ok: true }));
        const res = await app.inject({ method: 'GET', url: '/api/data' });
        expect(res.statusCode).toBe(401);
        expect(res.json()).toEqual({
          error: 'unauthorized',
          error_description: 'No access token was provided',
        });
        await app.close();

        const typo = Fastify();
        typo.register(gatehouse, { ...base, prefix: '/api', prefx: '/api' } as never);
        await expect(typo.ready()).rejects.toThrow('unknown option "prefx"');
        await typo.close();
      });
    },
  },
);
