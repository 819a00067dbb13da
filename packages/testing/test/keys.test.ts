import { calculateJwkThumbprint, compactVerify, importJWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { TEST_ALGORITHMS } from '../src/defaults.js';
import { signCompact } from '../src/jws.js';
import { generateSigningKey, KeyRing } from '../src/keys.js';

describe('generateSigningKey', () => {
  for (const alg of TEST_ALGORITHMS) {
    it(`makes a ${alg} key whose public JWK verifies its signatures (checked with jose)`, async () => {
      const key = await generateSigningKey(alg);
      const jws = signCompact(key, { alg, kid: key.kid }, { sub: 'x' });
      const publicKey = await importJWK(key.publicJwk, alg);
      const { payload } = await compactVerify(jws, publicKey);
      expect(JSON.parse(Buffer.from(payload).toString())).toEqual({ sub: 'x' });
      expect(key.publicJwk).toMatchObject({ alg, use: 'sig', kid: key.kid });
    });
  }

  it('publishes no private members', async () => {
    for (const alg of TEST_ALGORITHMS) {
      const { publicJwk } = await generateSigningKey(alg);
      for (const member of ['d', 'p', 'q', 'dp', 'dq', 'qi']) expect(publicJwk).not.toHaveProperty(member);
    }
  });

  it('uses the RFC 7638 thumbprint as kid unless one is given', async () => {
    const key = await generateSigningKey('ES256');
    expect(key.kid).toBe(await calculateJwkThumbprint(key.publicJwk, 'sha256'));
    expect((await generateSigningKey('ES256', 'my-kid')).kid).toBe('my-kid');
  });

  it('makes RSA keys of 2048 bits and EdDSA keys on Ed25519', async () => {
    expect((await generateSigningKey('RS256')).privateKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect((await generateSigningKey('EdDSA')).publicJwk.crv).toBe('Ed25519');
  });

  it('never returns the same key twice (no cache shared between issuers)', async () => {
    const [a, b] = await Promise.all([generateSigningKey('ES256'), generateSigningKey('ES256')]);
    expect(a.kid).not.toBe(b.kid);
  });
});

describe('KeyRing', () => {
  it('publishes the active key, and keeps the previous one for one rotation', async () => {
    const first = await generateSigningKey('ES256');
    const ring = new KeyRing(first);
    expect(ring.jwks().keys.map((k) => k.kid)).toEqual([first.kid]);

    const second = await ring.rotate();
    expect(ring.active).toBe(second);
    expect(ring.jwks().keys.map((k) => k.kid)).toEqual([second.kid, first.kid]);
    expect(ring.find(first.kid)).toBe(first);

    const third = await ring.rotate();
    expect(ring.jwks().keys.map((k) => k.kid)).toEqual([third.kid, second.kid]);
    expect(ring.find(first.kid)).toBeUndefined();
  });

  it('drops every previous key with dropPrevious', async () => {
    const ring = new KeyRing(await generateSigningKey('ES256'));
    await ring.rotate();
    const next = await ring.rotate({ dropPrevious: true });
    expect(ring.jwks().keys.map((k) => k.kid)).toEqual([next.kid]);
  });

  it('can change kid and algorithm on rotation, and refuses bad options', async () => {
    const ring = new KeyRing(await generateSigningKey('ES256', 'k1'));
    const next = await ring.rotate({ kid: 'k2', alg: 'EdDSA' });
    expect(next).toMatchObject({ kid: 'k2', alg: 'EdDSA' });
    await expect(ring.rotate({ kid: 'k1' })).rejects.toThrow(/"kid" option must differ/);
    await expect(ring.rotate({ kid: '' })).rejects.toThrow(/"kid" option must be a non-empty string/);
    await expect(ring.rotate({ alg: 'HS256' as never })).rejects.toThrow(/"alg" option must be one of/);
    await expect(ring.rotate(null as never)).rejects.toThrow(TypeError);
  });

  it('returns a fresh JWKS object on every call', async () => {
    const ring = new KeyRing(await generateSigningKey('ES256'));
    const a = ring.jwks();
    a.keys[0]!.kid = 'changed';
    expect(ring.jwks().keys[0]!.kid).not.toBe('changed');
  });
});
