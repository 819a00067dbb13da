/** resolveConfig: defaults, derived addresses, and a ConfigError naming each bad setting. */
import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/config/defaults.js';
import { ConfigError } from '../../src/errors.js';
import { resolveConfig } from '../../src/issuer-config.js';

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

  it('takes a PostgreSQL URL as the database, with pool defaults', () => {
    const config = resolveConfig({
      ...base,
      database: 'postgresql://app:pw@db:5432/gatehouse?sslmode=require',
    });
    expect(config.database).toBe('postgresql://app:pw@db:5432/gatehouse?sslmode=require');
    expect(config.postgres).toEqual(DEFAULTS.postgres);
    expect(resolveConfig({ ...base, postgres: { poolSize: 50 } }).postgres.poolSize).toBe(50);
  });

  it('keeps a path prefix and drops a trailing slash', () => {
    const config = resolveConfig({ baseUrl: 'https://id.example.com/auth/' });
    expect(config.baseUrl).toBe('https://id.example.com/auth');
    expect(config.basePath).toBe('/auth');
    expect(config.issuer).toBe('https://id.example.com/auth/oidc');
  });

  it('a base URL or a setting without its scheme says so, with the URL meant (#29 item 9)', () => {
    expect(() => resolveConfig({ baseUrl: 'localhost:3001' })).toThrow(
      '"baseUrl" is missing its scheme (http:// or https://): write "http://localhost:3001"',
    );
    expect(() => resolveConfig({ baseUrl: 'id.example.com/auth' })).toThrow(
      '"baseUrl" is missing its scheme (http:// or https://): write "https://id.example.com/auth"',
    );
    expect(() => resolveConfig({ ...base, keys: { gracePeriod: -1 } })).toThrow(
      '"keys.gracePeriod" must be an integer, 0 or more',
    );
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
    [{ ...base, accessTokenFormat: 'paseto' }, 'accessTokenFormat'],
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
    [{ ...base, cookieKeys: ['short'] }, 'cookieKeys.0'],
    [{ ...base, store: {} }, 'store'],
    [{ ...base, database: 'mysql://db/gatehouse' }, 'database'],
    [{ ...base, database: 'postgres://[bad' }, 'database'],
    [{ ...base, postgres: { poolSize: 1 } }, 'postgres.poolSize'],
    [{ ...base, postgres: { connectionTimeout: 10 } }, 'postgres.connectionTimeout'],
    [{ ...base, postgres: { idleTimeout: 'long' } }, 'postgres.idleTimeout'],
    [{ ...base, postgres: 'fast' }, 'postgres'],
    [{ ...base, keys: 'fast' }, 'keys'],
    [{ ...base, subjectTokens: { ttl: 3_601 } }, 'subjectTokens.ttl'],
    [{ ...base, subjectTokens: { ttl: 5 } }, 'subjectTokens.ttl'],
    [{ ...base, tokenExchange: { maxFailures: 0 } }, 'tokenExchange.maxFailures'],
    [{ ...base, tokenExchange: { failureWindow: 100_000 } }, 'tokenExchange.failureWindow'],
    [{ ...base, customJwtClaims: {} }, 'customJwtClaims.module'],
    [{ ...base, customJwtClaims: { module: '/no/such/claims.mjs' } }, 'customJwtClaims.module'],
    [{ ...base, customJwtClaims: { module: import.meta.filename, timeout: 50 } }, 'customJwtClaims.timeout'],
    [
      { ...base, customJwtClaims: { module: import.meta.filename, memoryLimit: 8 } },
      'customJwtClaims.memoryLimit',
    ],
    [
      { ...base, customJwtClaims: { module: import.meta.filename, maxResultBytes: 10 } },
      'customJwtClaims.maxResultBytes',
    ],
    [
      { ...base, customJwtClaims: { module: import.meta.filename, onError: 'ignore' } },
      'customJwtClaims.onError',
    ],
    [{ ...base, customJwtClaims: { module: import.meta.filename, workers: 0 } }, 'customJwtClaims.workers'],
    [
      { ...base, customJwtClaims: { module: import.meta.filename, environmentVariables: { 'A-B': 'x' } } },
      'customJwtClaims.environmentVariables',
    ],
    [
      { ...base, customJwtClaims: { module: import.meta.filename, environmentVariables: { A: 1 } } },
      'customJwtClaims.environmentVariables',
    ],
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

  it('impersonation settings: defaults, and the custom claims module made absolute', () => {
    const config = resolveConfig(base);
    expect(config.subjectTokens).toEqual({ ttl: 600 });
    expect(config.tokenExchange).toEqual({ maxFailures: 10, failureWindow: 300 });
    expect(config.customJwtClaims).toBeUndefined();
    const relative = resolveConfig({
      ...base,
      customJwtClaims: { module: 'package.json', environmentVariables: { TENANT: 'acme' } },
    });
    expect(relative.customJwtClaims).toEqual({
      module: `${process.cwd()}/package.json`,
      environmentVariables: { TENANT: 'acme' },
      timeout: DEFAULTS.customJwtClaims.timeout,
      memoryLimit: 128,
      maxResultBytes: 65_536,
      onError: 'deny',
      workers: 2,
    });
    expect(DEFAULTS.customJwtClaims.timeout).toBe(5_000);
  });
});

describe('resolveConfig refuses names that are no option', () => {
  const refused = (config: unknown) => {
    try {
      resolveConfig(config as Parameters<typeof resolveConfig>[0]);
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect(err).toBeInstanceOf(TypeError);
      return err as ConfigError;
    }
    throw new Error('resolveConfig accepted it');
  };

  it('at the top level, suggesting the closest option', () => {
    const err = refused({ baseURL: 'http://localhost:3001' });
    expect(err.message).toBe('"baseURL" is not a known option — did you mean "baseUrl"?');
    expect(err.option).toBe('baseURL');
    expect(refused({ ...base, colour: 'blue' }).message).toBe('"colour" is not a known option');
  });

  it('at every nesting level, naming the full path', () => {
    expect(refused({ ...base, keys: { graceperiod: 60 } }).message).toBe(
      '"keys.graceperiod" is not a known option — did you mean "keys.gracePeriod"?',
    );
    expect(refused({ ...base, admin: { clientSecrte: 'x'.repeat(40) } }).message).toBe(
      '"admin.clientSecrte" is not a known option — did you mean "admin.clientSecret"?',
    );
    expect(refused({ ...base, postgres: { pool: 5 } }).option).toBe('postgres.pool');
    expect(refused({ ...base, customJwtClaims: { module: 'x.mjs', timout: 5 } }).message).toContain(
      'did you mean "customJwtClaims.timeout"?',
    );
  });

  it('leaves the keys of values alone (environment variables, cookie keys, streams)', () => {
    const config = resolveConfig({
      ...base,
      cookieKeys: ['k'.repeat(32)],
      log: { level: 'silent', destination: { write: () => {} } as never },
    });
    expect(config.log.level).toBe('silent');
    // A wrong type is the option's own error, not an unknown name.
    expect(refused({ ...base, keys: 'RS256' }).message).toBe('"keys" must be an object');
  });
});
