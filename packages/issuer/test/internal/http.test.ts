/** JSON depth scanning and prototype keys. */
import { describe, expect, it } from 'vitest';
import { jsonDepthExceeds, prototypeKeyPath } from '../../src/internal/http.js';

describe('jsonDepthExceeds', () => {
  it('counts nesting of objects and arrays, ignoring brackets inside strings', () => {
    expect(jsonDepthExceeds('{"a":[{"b":1}]}', 3)).toBe(false);
    expect(jsonDepthExceeds('{"a":[{"b":[1]}]}', 3)).toBe(true);
    expect(jsonDepthExceeds('{"a":"[[[[[[[[[[[["}', 2)).toBe(false);
    expect(jsonDepthExceeds('{"a":"\\"[[[[["}', 1)).toBe(false);
    expect(jsonDepthExceeds('['.repeat(10_000), 32)).toBe(true);
  });
});

describe('prototypeKeyPath', () => {
  it('B74: finds __proto__, constructor and prototype keys at any depth, not values or longer names', () => {
    expect(prototypeKeyPath(JSON.parse('{"__proto__":{"a":1}}'))).toBe('body.__proto__');
    expect(prototypeKeyPath(JSON.parse('{"a":[1,{"b":{"constructor":2}}]}'))).toBe('body.a.1.b.constructor');
    expect(prototypeKeyPath({ a: { prototype: null } }, 'body.context')).toBe('body.context.a.prototype');
    expect(prototypeKeyPath({ note: '__proto__', constructorName: 1, list: ['prototype'] })).toBeUndefined();
    expect(prototypeKeyPath('text')).toBeUndefined();
    expect(prototypeKeyPath(null)).toBeUndefined();
  });
});
