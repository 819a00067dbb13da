import { describe, expect, it } from 'vitest';
import { looksLikeJwt } from '../../src/grants/token-types.js';

describe('looksLikeJwt', () => {
  it.each([
    ['eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln', true],
    ['eyJhbGciOiJub25lIn0.eyJzdWIiOiJhIn0.', true],
    ['sub_0123456789abcdef', false],
    ['gpat_0123456789abcdef', false],
    ['a.b', false],
    ['a.b.c.d', false],
    ['a+b.c.d', false],
    ['.b.c', false],
    ['a.b.c\n', false],
  ])('%j → %s', (value, expected) => {
    expect(looksLikeJwt(value)).toBe(expected);
  });
});
