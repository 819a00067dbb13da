/** Strict JSON object decoding for JOSE headers and claim sets (src/internal/json.ts). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonObject } from '../../src/internal/json.js';

const bytes = (text: string) => Buffer.from(text, 'utf8');
const parse = (text: string) => parseJsonObject(bytes(text));

describe('parseJsonObject', () => {
  it('decodes a UTF-8 JSON object', () => {
    expect(parse('{"alg":"ES256","kid":"k1"}')).toEqual({ alg: 'ES256', kid: 'k1' });
    expect(parse(' \t\r\n{ "a" : [1, {"b": null}] , "ü": "✓" } \n')).toEqual({ a: [1, { b: null }], ü: '✓' });
    expect(parse('{}')).toEqual({});
  });

  it('reads a slice of a larger buffer without looking outside it', () => {
    const buffer = bytes('xx{"a":1}{"a":2}');
    expect(parseJsonObject(buffer.subarray(2, 9))).toEqual({ a: 1 });
  });

  it.each([
    ['an array', '[]'],
    ['a string', '"x"'],
    ['null', 'null'],
    ['a number', '1'],
    ['a boolean', 'false'],
    ['empty input', ''],
    ['whitespace only', '  '],
    ['trailing garbage', '{"a":1}x'],
    ['two objects', '{"a":1}{"b":2}'],
    ['a byte-order mark', '\ufeff{"a":1}'],
    ['a trailing comma', '{"a":1,}'],
    ['single quotes', "{'a':1}"],
    ['a comment', '{"a":1 /* c */}'],
    ['an unquoted key', '{a:1}'],
    ['NaN', '{"a":NaN}'],
  ])('refuses %s', (_name, text) => {
    expect(parse(text)).toBeUndefined();
  });

  it.each([
    ['a lone continuation byte', [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0x80, 0x22, 0x7d]],
    ['0xff', [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]],
    ['an overlong "/"', [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc0, 0xaf, 0x22, 0x7d]],
    ['an encoded surrogate', [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]],
    ['a truncated sequence', [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xe2, 0x9c, 0x22, 0x7d]],
  ])('refuses invalid UTF-8: %s', (_name, raw) => {
    expect(parseJsonObject(Uint8Array.from(raw))).toBeUndefined();
  });

  describe('duplicate member names', () => {
    it.each([
      ['at the top level', '{"alg":"RS256","kid":"k","alg":"none"}'],
      ['adjacent', '{"sub":"a","sub":"a"}'],
      ['nested in an object', '{"act":{"sub":"a","sub":"b"}}'],
      ['inside an array', '{"x":[1,{"y":1,"y":2}]}'],
      ['ten levels down', `${'{"a":'.repeat(10)}{"z":1,"z":2}${'}'.repeat(10)}`],
      ['spelled with an escape', '{"sub":"a","s\\u0075b":"b"}'],
      ['spelled with escapes on both', '{"\\u0073ub":"a","s\\u0075b":"b"}'],
      ['replacing an object by a scalar', '{"a":{"x":1},"a":2}'],
      ['replacing a scalar by an object', '{"a":1,"a":{"x":1}}'],
      ['with whitespace before the colon', '{"a" :1, "a"\n:2}'],
      ['named __proto__', '{"__proto__":1,"__proto__":2}'],
      ['empty names', '{"":1,"":2}'],
    ])('refuses a duplicate %s', (_name, text) => {
      expect(() => JSON.parse(text)).not.toThrow();
      expect(parse(text)).toBeUndefined();
    });

    it.each([
      ['the same name in sibling objects', '{"a":{"x":1},"b":{"x":2}}'],
      ['the same name at different depths', '{"x":1,"y":{"x":2}}'],
      ['a value that looks like a member', '{"a":"\\"a\\":1","b":"a"}'],
      ['a string value followed by a colon-like text', '{"a":"x\\":y","b":":"}'],
      ['escaped backslashes before a quote', '{"a\\\\":1,"a":2}'],
      ['member names inside string arrays', '{"a":["a","a"],"b":"a"}'],
      ['names that differ only in case', '{"sub":1,"Sub":2}'],
    ])('accepts %s', (_name, text) => {
      expect(parse(text)).toEqual(JSON.parse(text));
    });
  });

  it('keeps __proto__ as a plain own member without touching the prototype', () => {
    const value = parse('{"__proto__":{"admin":true},"sub":"x"}')!;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__', 'sub']);
    expect((value as { admin?: boolean }).admin).toBeUndefined();
    expect(({} as { admin?: boolean }).admin).toBeUndefined();
  });

  it('handles very deep nesting without overflowing the stack', () => {
    const depth = 50_000;
    const deep = `{"a":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    expect(parse(deep)).toBeDefined();
    const deepObjects = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    expect(parse(deepObjects)).toBeDefined();
    const deepDuplicate = `${'{"a":'.repeat(depth)}{"b":1,"b":2}${'}'.repeat(depth)}`;
    expect(parse(deepDuplicate)).toBeUndefined();
  });

  it('agrees with JSON.parse on every serialized object (no duplicates possible)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 8 }), (object) => {
        const text = JSON.stringify(object);
        expect(parseJsonObject(bytes(text))).toEqual(JSON.parse(text));
      }),
      { numRuns: 300 },
    );
  });

  it('refuses any object text with one member repeated', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue(), { minKeys: 1, maxKeys: 6 }),
        fc.nat(),
        fc.jsonValue(),
        (object, pick, value) => {
          const keys = Object.keys(object);
          const name = keys[pick % keys.length]!;
          const text = `{${JSON.stringify(name)}:${JSON.stringify(value)},${JSON.stringify(object).slice(1)}`;
          expect(parseJsonObject(bytes(text))).toBeUndefined();
        },
      ),
      { numRuns: 300 },
    );
  });

  it('never throws, whatever the bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (raw) => {
        const out = parseJsonObject(raw);
        if (out !== undefined) expect(typeof out).toBe('object');
      }),
      { numRuns: 300 },
    );
  });
});
