/** Counting repeated header lines in Node's rawHeaders (src/internal/headers.ts). */
import { describe, expect, it } from 'vitest';
import { countHeaderLines } from '../../src/internal/headers.js';

describe('countHeaderLines', () => {
  it('counts lines of one name in any case, and only names (not values)', () => {
    const raw = ['Authorization', 'Bearer a', 'DPoP', 'x', 'authorization', 'Bearer b', 'x-dpop', 'dpop'];
    expect(countHeaderLines(raw, 'authorization')).toBe(2);
    expect(countHeaderLines(raw, 'dpop')).toBe(1);
    expect(countHeaderLines(raw, 'host')).toBe(0);
    expect(countHeaderLines(undefined, 'dpop')).toBe(0);
  });
});
