import { describe, expect, it } from 'vitest';
import {
  createVerifier,
  DEFAULTS,
  MAX_CLOCK_TOLERANCE,
  resolveOptions,
  type VerifierOptions,
} from '../src/index.js';

const base: VerifierOptions = { issuer: 'https://id.test/oidc', audience: 'https://api.test' };

describe('DEFAULTS', () => {
  it('is deeply frozen', () => {
    expect(Object.isFrozen(DEFAULTS)).toBe(true);
    expect(Object.isFrozen(DEFAULTS.jwks)).toBe(true);
    expect(Object.isFrozen(DEFAULTS.cache)).toBe(true);
    expect(Object.isFrozen(DEFAULTS.algorithms)).toBe(true);
  });

  it('has the documented values', () => {
    expect(DEFAULTS.clockTolerance).toBe(5);
    expect(DEFAULTS.jwks.cacheMaxAge).toBe(600_000);
    expect(DEFAULTS.jwks.cooldown).toBe(30_000);
    expect(DEFAULTS.jwks.timeout).toBe(5_000);
    expect(DEFAULTS.maxTokenLength).toBe(8192);
    expect(DEFAULTS.algorithms).not.toContain('HS256');
    expect(DEFAULTS.algorithms).not.toContain('none');
  });
});

describe('resolveOptions', () => {
  it('applies defaults', () => {
    const r = resolveOptions(base);
    expect(r.issuers).toEqual(['https://id.test/oidc']);
    expect(r.audiences).toEqual(['https://api.test']);
    expect(r.clockTolerance).toBe(5);
    expect(r.jwks.cooldown).toBe(30_000);
    expect(r.cache).toEqual({ max: 1000 });
    expect([...r.algorithms]).toEqual([...DEFAULTS.algorithms]);
    expect(Object.isFrozen(r)).toBe(true);
  });

  // Catalogue A42: clock tolerance above 300 s or negative → refuses to start.
  it.each([301, 600, -1, Number.NaN, Number.POSITIVE_INFINITY, '5'])('refuses clockTolerance %s', (value) => {
    expect(() => createVerifier({ ...base, clockTolerance: value as number })).toThrow(
      new TypeError(
        `"clockTolerance" option must be a number between 0 and ${MAX_CLOCK_TOLERANCE} (seconds)`,
      ),
    );
  });

  it.each([0, 300])('accepts clockTolerance %s', (value) => {
    expect(resolveOptions({ ...base, clockTolerance: value }).clockTolerance).toBe(value);
  });

  it.each([
    [{ issuer: '' }, 'issuer'],
    [{ issuer: [] }, 'issuer'],
    [{ audience: undefined }, 'audience'],
    [{ audience: [42] }, 'audience'],
    [{ algorithms: ['HS256'] }, 'algorithms'],
    [{ algorithms: ['none'] }, 'algorithms'],
    [{ jwksUri: 'not a url' }, 'jwksUri'],
    [{ jwksUri: 'http://id.example.com/jwks' }, 'jwksUri'],
    [{ issuer: 'http://id.example.com' }, 'issuer'],
    [{ issuer: ['https://a.test', 'https://b.test'] }, undefined],
    [{ maxTokenAge: 0 }, 'maxTokenAge'],
    [{ strict: 'yes' }, 'strict'],
    [{ requiredScopes: 'a b' }, undefined],
    [{ requiredScopes: [1] }, 'requiredScopes'],
    [{ jwks: { timeout: 0 } }, 'jwks.timeout'],
    [{ jwks: { cooldown: -1 } }, 'jwks.cooldown'],
    [{ jwks: { allowedOrigins: 'https://keys.example.com' } }, 'jwks.allowedOrigins'],
    [{ jwks: { allowedOrigins: ['https://keys.example.com/jwks'] } }, 'jwks.allowedOrigins'],
    [{ jwks: { allowedOrigins: ['https://keys.example.com?x=1'] } }, 'jwks.allowedOrigins'],
    [{ jwks: { allowedOrigins: ['https://user:pw@keys.example.com'] } }, 'jwks.allowedOrigins'],
    [{ jwks: { allowedOrigins: ['http://keys.example.com'] } }, 'jwks.allowedOrigins'],
    [{ jwks: { allowedOrigins: ['keys.example.com'] } }, 'jwks.allowedOrigins'],
    [{ jwks: { allowedOrigins: [42] } }, 'jwks.allowedOrigins'],
    [{ jwks: { allowedOrigins: ['https://KEYS.example.com:443', 'http://127.0.0.1:8080'] } }, undefined],
    [{ cache: { max: 0 } }, 'cache.max'],
    [{ cache: { max: 1.5 } }, 'cache.max'],
    [{ fetch: 'fetch' }, 'fetch'],
    [{ realm: 'a"b' }, 'realm'],
    [{ claims: { tenant: 'acme' } }, 'claims.tenant'],
    [{ tokenSources: { query: 'yes' } }, 'tokenSources.query'],
  ])('names the bad option %j', (patch, option) => {
    const run = () => resolveOptions({ ...base, ...(patch as object) } as VerifierOptions);
    if (option === undefined) {
      expect(run).not.toThrow();
    } else {
      expect(run).toThrow(TypeError);
      expect(run).toThrow(`"${option}" option`);
    }
  });

  it('accepts http: for loopback hosts only, unless allowInsecureHttp', () => {
    expect(() => resolveOptions({ ...base, jwksUri: 'http://127.0.0.1:8080/jwks' })).not.toThrow();
    expect(() => resolveOptions({ ...base, jwksUri: 'http://localhost/jwks' })).not.toThrow();
    expect(() => resolveOptions({ ...base, jwksUri: 'http://[::1]:9/jwks' })).not.toThrow();
    expect(() =>
      resolveOptions({ ...base, jwksUri: 'http://10.0.0.1/jwks', allowInsecureHttp: true }),
    ).not.toThrow();
  });

  it('B78: jwks.allowedOrigins defaults to none and is normalised to origins', () => {
    expect(resolveOptions(base).jwks.allowedOrigins).toEqual([]);
    expect(
      resolveOptions({
        ...base,
        jwks: {
          allowedOrigins: ['https://KEYS.example.com:443', 'https://keys.example.com/', 'http://localhost:9'],
        },
      }).jwks.allowedOrigins,
    ).toEqual(['https://keys.example.com', 'http://localhost:9']);
    expect(() => resolveOptions({ ...base, jwks: { allowedOrigin: [] } as never })).toThrow(
      'unknown option "jwks.allowedOrigin" (did you mean "jwks.allowedOrigins"?)',
    );
  });

  it('deduplicates list options and accepts several issuers with a jwksUri', () => {
    const r = resolveOptions({
      issuer: ['https://a.test', 'https://b.test', 'https://a.test'],
      audience: ['x', 'x'],
      jwksUri: 'https://a.test/jwks',
    });
    expect(r.issuers).toEqual(['https://a.test', 'https://b.test']);
    expect(r.audiences).toEqual(['x']);
  });

  it('turns the cache off with false', () => {
    expect(resolveOptions({ ...base, cache: false }).cache).toBe(false);
  });
});
