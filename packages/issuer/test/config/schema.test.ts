/** resolveConfig: defaults, derived addresses, and a ConfigError naming each bad setting. */
import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/config/defaults.js';
import { resolveConfig } from '../../src/config/schema.js';
import { ConfigError } from '../../src/errors.js';

const base = { baseUrl: 'http://localhost:3001' };

describe('resolveConfig', () => {
  it('derives the issuer, the Management API audience and defaults', () => {
    const config = resolveConfig(base);
    expect(config).toMatchObject({
      baseUrl: 'http://localhost:3001',
      basePath: '',
      issuer: 'http://localhost:3001/oidc',
      managementAudience: 'http://localhost:3001/api',
      port: DEFAULTS.port,
      host: '127.0.0.1',
      database: '.data/issuer.sqlite',
    });
    expect(config.keys).toEqual({
      algorithm: 'RS256',
      rsaModulusLength: 2048,
      gracePeriod: 86_400,
      reloadInterval: 60,
    });
    expect(config.ttl.authorizationCode).toBe(60);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('keeps a path prefix and drops a trailing slash', () => {
    const config = resolveConfig({ baseUrl: 'https://id.example.com/auth/' });
    expect(config.baseUrl).toBe('https://id.example.com/auth');
    expect(config.basePath).toBe('/auth');
    expect(config.issuer).toBe('https://id.example.com/auth/oidc');
  });

  it.each([
    [{}, 'baseUrl'],
    [{ baseUrl: 'localhost:3001' }, 'baseUrl'],
    [{ baseUrl: 'ftp://x.example.com' }, 'baseUrl'],
    [{ baseUrl: 'http://x.example.com/?q=1' }, 'baseUrl'],
    [{ ...base, port: 70_000 }, 'port'],
    [{ ...base, host: '' }, 'host'],
    [{ ...base, trustProxy: 'yes' }, 'trustProxy'],
    [{ ...base, log: { level: 'loud' } }, 'log.level'],
    [{ ...base, keys: { algorithm: 'HS256' } }, 'keys.algorithm'],
    [{ ...base, keys: { gracePeriod: -1 } }, 'keys.gracePeriod'],
    [{ ...base, keys: { rsaModulusLength: 1024 } }, 'keys.rsaModulusLength'],
    [{ ...base, ttl: { authorizationCode: 3600 } }, 'ttl.authorizationCode'],
    [{ ...base, ttl: { accessToken: 0 } }, 'ttl.accessToken'],
    [{ ...base, http: { maxBodyBytes: 10_000_000 } }, 'http.maxBodyBytes'],
    [{ ...base, passwords: { scryptCost: 3000 } }, 'passwords.scryptCost'],
    [{ ...base, admin: { clientId: 'only-id' } }, 'admin.clientSecret'],
    [{ ...base, admin: { clientId: 'x y', clientSecret: 's'.repeat(40) } }, 'admin.clientId'],
    [{ ...base, admin: { clientId: 'usr_admin', clientSecret: 's'.repeat(40) } }, 'admin.clientId'],
    [{ ...base, admin: { clientId: 'admin', clientSecret: 'short' } }, 'admin.clientSecret'],
    [{ ...base, cookieKeys: ['short'] }, 'cookieKeys'],
    [{ ...base, store: {} }, 'store'],
    [{ ...base, keys: 'fast' }, 'keys'],
  ])('%j → ConfigError naming %s', (config, option) => {
    let error: unknown;
    try {
      resolveConfig(config as never);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as ConfigError).option).toBe(option);
    expect((error as ConfigError).message).toContain(`"${option}"`);
  });
});
