/** JSON depth scanning. */
import { describe, expect, it } from 'vitest';
import { jsonDepthExceeds } from '../../src/internal/http.js';

describe('jsonDepthExceeds', () => {
  it('counts nesting of objects and arrays, ignoring brackets inside strings', () => {
    expect(jsonDepthExceeds('{"a":[{"b":1}]}', 3)).toBe(false);
    expect(jsonDepthExceeds('{"a":[{"b":[1]}]}', 3)).toBe(true);
    expect(jsonDepthExceeds('{"a":"[[[[[[[[[[[["}', 2)).toBe(false);
    expect(jsonDepthExceeds('{"a":"\\"[[[[["}', 1)).toBe(false);
    expect(jsonDepthExceeds('['.repeat(10_000), 32)).toBe(true);
  });
});
