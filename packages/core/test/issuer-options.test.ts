/**
 * The `issuer` option's forms and `issuerCache`, validated at construction (issuer-options.ts).
 */
import { describe, expect, it } from 'vitest';
import { createVerifier, DEFAULTS, resolveOptions, type VerifierOptions } from '../src/index.js';

const AUD = 'https://api.test/orders';
const resolve = (patch: Partial<VerifierOptions>) =>
  resolveOptions({ issuer: 'https://a.test', audience: AUD, ...patch } as VerifierOptions);

describe('the issuer option', () => {
  it('takes a string, a list of strings and objects, or a function', () => {
    expect(resolve({}).issuerList).toEqual([
      {
        issuer: 'https://a.test',
        jwksUri: undefined,
        audiences: [AUD],
        algorithms: new Set(DEFAULTS.algorithms),
      },
    ]);
    const r = resolve({
      issuer: [
        'https://a.test',
        {
          issuer: 'https://b.test',
          audience: ['b1', 'b2'],
          algorithms: ['EdDSA'],
          jwksUri: 'https://keys.b.test/jwks',
        },
      ],
      algorithms: ['ES256'],
    });
    expect(r.issuers).toEqual(['https://a.test', 'https://b.test']);
    expect(r.issuerList[0]).toMatchObject({
      audiences: [AUD],
      algorithms: new Set(['ES256']),
      jwksUri: undefined,
    });
    expect(r.issuerList[1]!.jwksUri?.href).toBe('https://keys.b.test/jwks');
    expect(r.issuerList[1]).toMatchObject({ audiences: ['b1', 'b2'], algorithms: new Set(['EdDSA']) });
    expect(r.issuerResolver).toBeUndefined();

    const fn = (iss: string) => iss.endsWith('.tenants.test/');
    const t = resolve({ issuer: fn });
    expect(t).toMatchObject({ issuers: [], issuerList: [], issuerResolver: fn });
    expect(t.issuerCache).toEqual(DEFAULTS.issuerCache);
    expect(() => createVerifier({ issuer: fn, audience: AUD })).not.toThrow();
  });

  it('refuses unknown keys of an issuer entry and of issuerCache with a "did you mean"', () => {
    expect(() =>
      resolve({ issuer: [{ issuer: 'https://b.test', jwksUrl: 'https://b.test/k' } as never] }),
    ).toThrow('unknown option "issuer[0].jwksUrl" (did you mean "issuer[0].jwksUri"?)');
    expect(() => resolve({ issuer: [{ issuer: 'https://b.test', audiences: 'x' } as never] })).toThrow(
      'unknown option "issuer[0].audiences" (did you mean "issuer[0].audience"?)',
    );
    expect(() => resolve({ issuer: () => true, issuerCache: { timout: 5 } as never })).toThrow(
      'unknown option "issuerCache.timout" (did you mean "issuerCache.timeout"?)',
    );
    expect(() => resolve({ issuerCahce: {} } as never)).toThrow(
      'unknown option "issuerCahce" (did you mean "issuerCache"?)',
    );
  });

  it.each([
    [{ issuer: [] }, 'issuer'],
    [{ issuer: 42 }, 'issuer'],
    [{ issuer: [42] }, 'issuer[0]'],
    [{ issuer: [null] }, 'issuer[0]'],
    [{ issuer: [{}] }, 'issuer[0].issuer'],
    [{ issuer: [{ issuer: '' }] }, 'issuer[0].issuer'],
    [{ issuer: [{ issuer: ['https://a.test', 'https://b.test'] }] }, 'issuer[0].issuer'],
    [{ issuer: ['https://a.test', 'ftp://b.test'] }, 'issuer[1]'],
    [{ issuer: [{ issuer: 'http://b.example.com' }] }, 'issuer[0].issuer'],
    [{ issuer: [{ issuer: 'https://b.test', jwksUri: 'http://keys.example.com' }] }, 'issuer[0].jwksUri'],
    [{ issuer: [{ issuer: 'https://b.test', audience: [] }] }, 'issuer[0].audience'],
    [{ issuer: [{ issuer: 'https://b.test', algorithms: ['HS256'] }] }, 'issuer[0].algorithms'],
    [{ issuer: ['https://a.test', { issuer: 'https://a.test', audience: 'x' }] }, 'issuer[1]'],
    [{ issuer: () => true, issuerCache: { max: 0 } }, 'issuerCache.max'],
    [{ issuer: () => true, issuerCache: { max: 1.5 } }, 'issuerCache.max'],
    [{ issuer: () => true, issuerCache: { answers: 0 } }, 'issuerCache.answers'],
    [{ issuer: () => true, issuerCache: { timeout: 0 } }, 'issuerCache.timeout'],
    [{ issuer: () => true, issuerCache: 'big' }, 'issuerCache'],
  ])('names the bad option %j', (patch, option) => {
    const run = () => resolve(patch as Partial<VerifierOptions>);
    expect(run).toThrow(TypeError);
    expect(run).toThrow(`"${option}" option`);
  });

  it('accepts an issuer that is not a fetchable URL when its keys come from a jwksUri', () => {
    expect(() =>
      resolve({ issuer: ['urn:example:legacy', 'https://a.test'], jwksUri: 'https://a.test/jwks' }),
    ).not.toThrow();
    expect(() =>
      resolve({ issuer: [{ issuer: 'urn:example:legacy', jwksUri: 'https://a.test/jwks' }] }),
    ).not.toThrow();
    expect(() => resolve({ issuer: ['urn:example:legacy'] })).toThrow('"issuer[0]" option must use https:');
  });

  it('an issuer without its scheme says so, with the URL meant (#29 item 9)', () => {
    expect(() => resolve({ issuer: 'localhost:3001/oidc' })).toThrow(
      '"issuer" option is missing its scheme (http:// or https://): write "http://localhost:3001/oidc"',
    );
    expect(() => resolve({ issuer: 'id.example.com/oidc' })).toThrow(
      '"issuer" option is missing its scheme (http:// or https://): write "https://id.example.com/oidc"',
    );
  });

  it('drops a plain issuer named twice', () => {
    expect(resolve({ issuer: ['https://a.test', 'https://b.test', 'https://a.test'] }).issuers).toEqual([
      'https://a.test',
      'https://b.test',
    ]);
  });
});
