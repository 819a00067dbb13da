/**
 * The Node platform's own helper (src/internal/platform.ts): ECDSA R‖S → DER, exactly as OpenSSL
 * encodes it. Node only: WebCrypto verifies R‖S as it is (signature.test.ts runs on both).
 */
import { sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ecdsaToDer } from '../../src/internal/platform.js';
import { makeKey, type TestAlg } from '../helpers/fixtures.js';

const EC_SIZE = { ES256: 32, ES384: 48, ES512: 66 } as const;

/** Split a DER ECDSA signature into fixed-size R‖S (test-side reference implementation). */
function derToRaw(der: Buffer, size: number): Buffer {
  let offset = der[1]! & 0x80 ? 2 + (der[1]! & 0x7f) : 2;
  const parts: Buffer[] = [];
  for (let i = 0; i < 2; i++) {
    const len = der[offset + 1]!;
    let int = der.subarray(offset + 2, offset + 2 + len);
    while (int.length > size && int[0] === 0) int = int.subarray(1);
    parts.push(Buffer.concat([Buffer.alloc(size - int.length), int]));
    offset += 2 + len;
  }
  return Buffer.concat(parts);
}

describe('ecdsaToDer', () => {
  it.each(Object.entries(EC_SIZE))('%s: re-encodes R‖S exactly as OpenSSL encodes DER', (alg, size) => {
    const key = makeKey(alg as TestAlg);
    for (let i = 0; i < 64; i++) {
      const der = sign(`sha${alg.slice(2)}`, Buffer.from(`message ${i}`), {
        key: key.privateKey,
        dsaEncoding: 'der',
      });
      expect(ecdsaToDer(derToRaw(der, size), size)?.toString('hex')).toBe(der.toString('hex'));
    }
  });

  it('strips leading zero bytes and pads integers whose top bit is set', () => {
    const raw = Buffer.alloc(64);
    raw[31] = 0x01; // R = 1
    raw[32] = 0x80; // S = 0x80 00 … 00
    expect(ecdsaToDer(raw, 32)?.toString('hex')).toBe(`3026020101022100${'80'.padEnd(64, '0')}`);
  });

  it('uses the long length form for P-521 sized signatures', () => {
    const raw = Buffer.alloc(132, 0xff);
    const der = ecdsaToDer(raw, 66)!;
    expect([...der.subarray(0, 3)]).toEqual([0x30, 0x81, 2 * (2 + 67)]);
  });

  it('refuses a wrong length, R = 0 or S = 0 (CVE-2022-21449)', () => {
    const one = Buffer.alloc(64, 1);
    expect(ecdsaToDer(one.subarray(0, 63), 32)).toBeUndefined();
    expect(ecdsaToDer(Buffer.concat([one, Buffer.from([1])]), 32)).toBeUndefined();
    expect(ecdsaToDer(Buffer.alloc(0), 32)).toBeUndefined();
    expect(ecdsaToDer(Buffer.alloc(64), 32)).toBeUndefined();
    expect(ecdsaToDer(Buffer.concat([Buffer.alloc(32), Buffer.alloc(32, 1)]), 32)).toBeUndefined();
    expect(ecdsaToDer(Buffer.concat([Buffer.alloc(32, 1), Buffer.alloc(32)]), 32)).toBeUndefined();
    expect(ecdsaToDer(one, 32)).toBeInstanceOf(Buffer);
  });
});
