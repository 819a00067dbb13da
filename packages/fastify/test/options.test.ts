import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import gatehouse, { DEFAULTS } from '../src/index.js';

const base = { issuer: 'https://id.example.com', audience: 'https://api.example.com' };

describe('DEFAULTS', () => {
  it('is frozen and protective by default', () => {
    expect(Object.isFrozen(DEFAULTS)).toBe(true);
    expect(DEFAULTS).toEqual({ allowDelegation: true, handleErrors: true, mode: 'all' });
  });
});

describe('option validation at registration', () => {
  it('fails registration with a TypeError naming the option', async () => {
    const app = Fastify();
    app.register(gatehouse, { ...base, handleErrors: 1 } as never);
    await expect(app.ready()).rejects.toThrow('"handleErrors" option must be a boolean');
    await app.close();
  });

  it('refuses bad requireScope arguments when the route is declared', async () => {
    const app = Fastify();
    await app.register(gatehouse, base);
    expect(() => app.requireScope('a', { mode: 'some' } as never)).toThrow(
      '"mode" option must be "all" or "any"',
    );
    await app.close();
  });
});
