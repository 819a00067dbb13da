/** Unknown option keys and their suggestions (src/internal/known-keys.ts). */
import { describe, expect, it } from 'vitest';
import { closest, editDistance, rejectUnknownKeys } from '../../src/internal/known-keys.js';

describe('editDistance', () => {
  it.each([
    ['baseURL', 'baseUrl', 0],
    ['', 'port', 4],
    ['port', '', 4],
    ['prot', 'port', 1], // a swap of neighbours
    ['gracePeriode', 'gracePeriod', 1],
    ['kitten', 'sitting', 3],
    ['dataDir', 'database', 4],
  ])('%s → %s = %i', (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
    expect(editDistance(b, a)).toBe(distance);
  });
});

describe('closest', () => {
  it('suggests plausible typos only', () => {
    const known = ['jwksUri', 'issuer', 'audience', 'clockTolerance'];
    expect(closest('jwksUrl', known)).toBe('jwksUri');
    expect(closest('JwksUri', known)).toBe('jwksUri');
    expect(closest('audiance', known)).toBe('audience');
    expect(closest('clocktolerance', known)).toBe('clockTolerance');
    expect(closest('somethingElse', known)).toBeUndefined();
  });
});

describe('rejectUnknownKeys', () => {
  it('passes known keys and names the first unknown one', () => {
    expect(() => rejectUnknownKeys({ a: 1, b: 2 }, ['a', 'b'])).not.toThrow();
    expect(() => rejectUnknownKeys({ mode: 1, iatWindw: 2 }, ['mode', 'iatWindow'], 'dpop.')).toThrow(
      new TypeError('unknown option "dpop.iatWindw" (did you mean "dpop.iatWindow"?)'),
    );
    expect(() => rejectUnknownKeys({ zzz: 1 }, ['mode'])).toThrow(new TypeError('unknown option "zzz"'));
  });
});
