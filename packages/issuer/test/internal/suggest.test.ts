/** "Did you mean …?": the closest known name (core's rule; its edit distance is tested in core) and the hint. */
import { describe, expect, it } from 'vitest';
import { closest, didYouMean } from '../../src/internal/suggest.js';

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
