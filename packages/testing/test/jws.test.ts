/**
 * jws.ts: compact JWS as the test issuer writes it (header and payload verbatim, base64url without
 * padding), signed with an issuer key or a DPoP key alike, and the NumericDate clock.
 */
import { compactVerify, importJWK } from 'jose';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TEST_ALGORITHMS } from '../src/defaults.js';
import { generateDpopKey } from '../src/dpop.js';
import { b64url, nowSeconds, signCompact } from '../src/jws.js';
import { generateSigningKey } from '../src/keys.js';
import { decode } from './helpers/verify.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('signCompact', () => {
  it('writes header and payload verbatim', async () => {
    const key = await generateSigningKey('ES256');
    const token = signCompact(key, { alg: 'ES256', crit: ['exp'] }, { sub: 'x' });
    expect(decode(token)).toEqual({ header: { alg: 'ES256', crit: ['exp'] }, payload: { sub: 'x' } });
    expect(token.split('.')).toHaveLength(3);
  });

  for (const alg of TEST_ALGORITHMS) {
    it(`signs with a ${alg} DPoP key as with an issuer key (checked with jose)`, async () => {
      const key = await generateDpopKey(alg);
      const jws = signCompact(key, { alg, typ: 'dpop+jwt' }, { jti: 'j1' });
      const { payload } = await compactVerify(jws, await importJWK({ ...key.publicJwk }, alg));
      expect(JSON.parse(Buffer.from(payload).toString())).toEqual({ jti: 'j1' });
    });
  }
});

describe('b64url', () => {
  it('encodes text as UTF-8 and bytes as they are, without padding', () => {
    expect(b64url('{"alg":"none"}')).toBe('eyJhbGciOiJub25lIn0');
    expect(b64url('é')).toBe('w6k');
    expect(b64url(new Uint8Array([0xfb, 0xff]))).toBe('-_8');
  });
});

describe('nowSeconds', () => {
  it('is Date.now() in whole seconds, so fake timers apply', () => {
    vi.useFakeTimers({ now: 1_700_000_000_999 });
    expect(nowSeconds()).toBe(1_700_000_000);
  });
});
