/** "Did you mean …?": edit distance (case-insensitive, swaps count once) and the closest known name. */
import { describe, expect, it } from 'vitest';
import { closest, didYouMean, editDistance } from '../../src/internal/suggest.js';

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
  const known = ['baseUrl', 'port', 'host', 'dataDir', 'database', 'trustProxy'];

  it('finds the likely typo', () => {
    expect(closest('baseURL', known)).toBe('baseUrl');
    expect(closest('prot', known)).toBe('port');
    expect(closest('trustproxi', known)).toBe('trustProxy');
    expect(closest('datadir', known)).toBe('dataDir');
  });

  it('suggests nothing when nothing is close', () => {
    expect(closest('colour', known)).toBeUndefined();
    expect(closest('x', [])).toBeUndefined();
    expect(closest('issuerUrl', known)).toBeUndefined();
  });

  it('words the hint, with a formatter for prefixed names', () => {
    expect(didYouMean('baseURL', known)).toBe(' — did you mean "baseUrl"?');
    expect(didYouMean('colour', known)).toBe('');
    expect(didYouMean('prot', known, (name) => `--${name}`)).toBe(' — did you mean "--port"?');
  });
});
