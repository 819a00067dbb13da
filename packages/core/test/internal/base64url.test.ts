/** Strict, canonical base64url decoding (src/internal/base64url.ts). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeBase64url } from '../../src/internal/base64url.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** Plain bytes (Node's platform decodes to a Buffer, WebCrypto's to a Uint8Array). */
const bytesOf = (b: Uint8Array | undefined) => (b === undefined ? undefined : new Uint8Array(b));
describe('decodeBase64url', () => {
  it('decodes unpadded base64url of every length class', () => {
    expect(Buffer.from(decodeBase64url('eyJhIjoxfQ')!).toString()).toBe('{"a":1}');
    expect(bytesOf(decodeBase64url('AAAA'))).toEqual(new Uint8Array([0, 0, 0]));
    expect(bytesOf(decodeBase64url('AAA'))).toEqual(new Uint8Array([0, 0]));
    expect(bytesOf(decodeBase64url('AA'))).toEqual(new Uint8Array([0]));
    expect(bytesOf(decodeBase64url('-_8'))).toEqual(new Uint8Array([0xfb, 0xff]));
  });

  it('round-trips any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 200 }), (bytes) => {
        expect(bytesOf(decodeBase64url(Buffer.from(bytes).toString('base64url')))).toEqual(
          new Uint8Array(bytes),
        );
      }),
      { numRuns: 300 },
    );
  });

  it.each([
    ['empty', ''],
    ['padding', 'AA=='],
    ['a single padding character', 'AAA='],
    ['"+" (base64, not base64url)', 'A+AA'],
    ['"/" (base64, not base64url)', 'A/AA'],
    ['a space', 'AA AA'],
    ['a leading space', ' AAAA'],
    ['a newline', 'AAAA\n'],
    ['a tab', 'AA\tAA'],
    ['a dot', 'AA.A'],
    ['non-ASCII', 'AAÀA'],
    ['a full-width letter', 'AAＡA'],
    ['a length of 4n+1', 'AAAAA'],
    ['a single character', 'A'],
  ])('refuses %s', (_name, input) => {
    expect(decodeBase64url(input)).toBeUndefined();
  });

  it('refuses non-canonical encodings: unused bits of the last character must be zero', () => {
    // "AA" is the only encoding of 0x00; "AB".."AP" decode to the same byte in lenient decoders.
    expect(Buffer.from('AB', 'base64url')).toEqual(Buffer.from([0]));
    for (const c of ALPHABET.slice(1, 16)) expect(decodeBase64url(`A${c}`), `A${c}`).toBeUndefined();
    for (const c of 'AQgw') expect(decodeBase64url(`A${c}`), `A${c}`).toBeDefined();
    // Three characters carry two unused bits.
    for (const c of 'BCD') expect(decodeBase64url(`AA${c}`), `AA${c}`).toBeUndefined();
    expect(bytesOf(decodeBase64url('AAE'))).toEqual(new Uint8Array([0, 1]));
  });

  it('accepts exactly one encoding per byte string', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 40 }),
        fc.nat(),
        fc.constantFrom(...ALPHABET),
        (bytes, at, c) => {
          const canonical = Buffer.from(bytes).toString('base64url');
          const index = at % canonical.length;
          const altered = canonical.slice(0, index) + c + canonical.slice(index + 1);
          if (altered === canonical) return;
          const decoded = decodeBase64url(altered);
          if (decoded !== undefined) expect(Buffer.from(decoded).equals(Buffer.from(bytes))).toBe(false);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('every accepted string re-encodes to itself', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...ALPHABET, '=', '+', '/', ' '), minLength: 0, maxLength: 24 }),
        (input) => {
          const decoded = decodeBase64url(input);
          if (decoded !== undefined) expect(Buffer.from(decoded).toString('base64url')).toBe(input);
        },
      ),
      { numRuns: 500 },
    );
  });
});
