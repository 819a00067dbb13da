import { createHash, createPublicKey, verify } from 'node:crypto';
import { calculateJwkThumbprint, EmbeddedJWK, jwtVerify } from 'jose';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TEST_ALGORITHMS } from '../src/defaults.js';
import { accessTokenHash, createDpopProof, type DpopKey, generateDpopKey } from '../src/dpop.js';
import { createTestIssuer } from '../src/test-issuer.js';
import { decode } from './helpers/verify.js';

const URL_ = 'https://api.gatehouse.test/orders';

/** Verify a proof as a DPoP server does (RFC 9449 §4.3 steps 4–7): typ, alg, embedded public key, signature. */
const verifyProof = (proof: string, alg: string) =>
  jwtVerify(proof, EmbeddedJWK, { typ: 'dpop+jwt', algorithms: [alg] });

afterEach(() => {
  vi.useRealTimers();
});

describe('generateDpopKey', () => {
  it('makes ES256 keys by default', async () => {
    const key = await generateDpopKey();
    expect(key.alg).toBe('ES256');
    expect(key.publicJwk).toMatchObject({ kty: 'EC', crv: 'P-256' });
  });

  it.each([
    ['ES256', 'EC', ['crv', 'kty', 'x', 'y']],
    ['RS256', 'RSA', ['e', 'kty', 'n']],
    ['PS256', 'RSA', ['e', 'kty', 'n']],
    ['EdDSA', 'OKP', ['crv', 'kty', 'x']],
  ] as const)(
    'makes a %s key: %s, public members only, its RFC 7638 thumbprint',
    async (alg, kty, members) => {
      const key = await generateDpopKey(alg);
      expect(key.alg).toBe(alg);
      expect(key.publicJwk.kty).toBe(kty);
      expect(Object.keys(key.publicJwk).sort()).toEqual(members);
      expect(key.thumbprint).toBe(await calculateJwkThumbprint({ ...key.publicJwk }, 'sha256'));
      expect(key.privateKey.type).toBe('private');
      expect(Object.isFrozen(key) && Object.isFrozen(key.publicJwk)).toBe(true);
    },
  );

  it('makes RSA keys of 2048 bits and EdDSA keys on Ed25519', async () => {
    expect((await generateDpopKey('PS256')).privateKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect((await generateDpopKey('EdDSA')).publicJwk.crv).toBe('Ed25519');
  });

  it('never returns the same key twice, and refuses other algorithms', async () => {
    const [a, b] = await Promise.all([generateDpopKey(), generateDpopKey()]);
    expect(a.thumbprint).not.toBe(b.thumbprint);
    await expect(generateDpopKey('HS256' as never)).rejects.toThrow(/"alg" must be one of ES256/);
  });
});

describe('createDpopProof', () => {
  it('has the structure of RFC 9449 §4.1 example proof', async () => {
    const key = await generateDpopKey('ES256');
    const proof = createDpopProof({
      key,
      method: 'POST',
      url: 'https://server.example.com/token',
      iat: 1562262616,
      jti: '-BwC3ESc6acc2lTc',
    });
    const { header, payload } = decode(proof);
    expect(header).toEqual({ typ: 'dpop+jwt', alg: 'ES256', jwk: { ...key.publicJwk } });
    expect(Object.keys(header.jwk as object).sort()).toEqual(['crv', 'kty', 'x', 'y']); // as in the RFC
    expect(payload).toEqual({
      jti: '-BwC3ESc6acc2lTc',
      htm: 'POST',
      htu: 'https://server.example.com/token',
      iat: 1562262616,
    });
    expect(proof.split('.')).toHaveLength(3);
  });

  for (const alg of TEST_ALGORITHMS) {
    it(`makes ${alg} proofs that jose verifies with the embedded JWK and typ dpop+jwt`, async () => {
      const key = await generateDpopKey(alg);
      const proof = createDpopProof({ key, method: 'GET', url: URL_ });
      const { payload, protectedHeader } = await verifyProof(proof, alg);
      expect(protectedHeader).toEqual({ typ: 'dpop+jwt', alg, jwk: { ...key.publicJwk } });
      expect(payload).toMatchObject({ htm: 'GET', htu: URL_ });
      expect(payload).not.toHaveProperty('ath');
      expect(payload).not.toHaveProperty('nonce');
    });
  }

  it('writes ECDSA signatures in JOSE form: R‖S, 64 bytes for ES256, not DER', async () => {
    const key = await generateDpopKey('ES256');
    const proof = createDpopProof({ key, method: 'GET', url: URL_ });
    const [h, p, s] = proof.split('.') as [string, string, string];
    const signature = Buffer.from(s, 'base64url');
    expect(signature).toHaveLength(64);
    const publicKey = createPublicKey({ key: { ...key.publicJwk }, format: 'jwk' });
    const data = Buffer.from(`${h}.${p}`);
    expect(verify('sha256', data, { key: publicKey, dsaEncoding: 'ieee-p1363' }, signature)).toBe(true);
  });

  it('sets iat to now (following a fake Date) and a fresh random jti of at least 96 bits', async () => {
    const key = await generateDpopKey();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2030-01-01T00:00:00Z'));
    const a = decode(createDpopProof({ key, method: 'GET', url: URL_ })).payload;
    const b = decode(createDpopProof({ key, method: 'GET', url: URL_ })).payload;
    expect(a.iat).toBe(Date.UTC(2030, 0, 1) / 1000);
    expect(a.jti).not.toBe(b.jti);
    expect(a.jti).toMatch(/^[\w-]+$/);
    expect(Buffer.from(a.jti as string, 'base64url').length * 8).toBeGreaterThanOrEqual(96);
  });

  it('drops query and fragment from htu, and writes htm as given', async () => {
    const key = await generateDpopKey();
    const proof = createDpopProof({ key, method: 'PATCH', url: new URL(`${URL_}/42?expand=items#top`) });
    expect(decode(proof).payload).toMatchObject({ htm: 'PATCH', htu: `${URL_}/42` });
    const lower = createDpopProof({ key, method: 'get', url: `${URL_}?` });
    expect(decode(lower).payload).toMatchObject({ htm: 'get', htu: URL_ });
  });

  it('adds ath = base64url(SHA-256(access token)) and the nonce when given', async () => {
    const issuer = await createTestIssuer();
    const key = await generateDpopKey();
    const token = await issuer.sign({}, { dpop: key });
    const proof = createDpopProof({
      key,
      method: 'GET',
      url: URL_,
      accessToken: token,
      nonce: 'n-0S6_WzA2Mj',
    });
    const { payload } = await verifyProof(proof, 'ES256');
    expect(payload.ath).toBe(createHash('sha256').update(token).digest('base64url'));
    expect(payload.nonce).toBe('n-0S6_WzA2Mj');
    // RFC 9449 §7.1's example access token and its ath.
    expect(accessTokenHash('Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU')).toBe(
      'fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo',
    );
  });

  it("binds: a bound token's cnf.jkt equals the thumbprint of the proof's jwk", async () => {
    const issuer = await createTestIssuer();
    for (const alg of TEST_ALGORITHMS) {
      const key = await generateDpopKey(alg);
      const token = await issuer.sign({ scope: 'read:orders' }, { dpop: key });
      const proof = createDpopProof({ key, method: 'GET', url: URL_, accessToken: token });
      const { protectedHeader } = await verifyProof(proof, alg);
      const jkt = await calculateJwkThumbprint(protectedHeader.jwk!, 'sha256');
      expect(decode(token).payload.cnf, alg).toEqual({ jkt });
    }
  });
});

describe('createDpopProof overrides for negative tests', async () => {
  const key = await generateDpopKey('ES256');
  const base = { key, method: 'GET', url: URL_ };

  it('typ: "JWT" is written as given, and a typ-checking verifier refuses it', async () => {
    const proof = createDpopProof({ ...base, typ: 'JWT' });
    expect(decode(proof).header.typ).toBe('JWT');
    await expect(verifyProof(proof, 'ES256')).rejects.toMatchObject({
      code: 'ERR_JWT_CLAIM_VALIDATION_FAILED',
    });
  });

  it('header: { typ: undefined } removes typ', () => {
    expect(decode(createDpopProof({ ...base, header: { typ: undefined } })).header).not.toHaveProperty('typ');
  });

  it('a private member in jwk is written verbatim, and jose refuses the key', async () => {
    const { d } = key.privateKey.export({ format: 'jwk' });
    const proof = createDpopProof({ ...base, header: { jwk: { ...key.publicJwk, d } } });
    expect(decode(proof).header.jwk).toEqual({ ...key.publicJwk, d });
    await expect(verifyProof(proof, 'ES256')).rejects.toThrow(/must be a public key/);
  });

  it('alg: "none" makes an unsigned proof with an empty signature segment', async () => {
    const proof = createDpopProof({ ...base, alg: 'none' });
    expect(proof.endsWith('.')).toBe(true);
    expect(proof.split('.')).toHaveLength(3);
    expect(decode(proof).header).toEqual({ typ: 'dpop+jwt', alg: 'none', jwk: { ...key.publicJwk } });
    await expect(verifyProof(proof, 'ES256')).rejects.toThrow();
    // The same through header, and typ removal is kept (no other typ sneaks in).
    const bare = createDpopProof({ ...base, header: { alg: 'none', typ: undefined } });
    expect(decode(bare).header).toEqual({ alg: 'none', jwk: { ...key.publicJwk } });
  });

  it('another alg is written verbatim while the key signs with its own algorithm', async () => {
    const proof = createDpopProof({ ...base, alg: 'RS256' });
    expect(decode(proof).header.alg).toBe('RS256');
    await expect(jwtVerify(proof, EmbeddedJWK, { typ: 'dpop+jwt' })).rejects.toThrow();
  });

  it('iat, jti, htm and htu are overridable; undefined removes a claim', () => {
    const stale = createDpopProof({ ...base, iat: 1_000, jti: 'replayed-jti' });
    expect(decode(stale).payload).toMatchObject({ iat: 1_000, jti: 'replayed-jti' });
    const other = createDpopProof({ ...base, claims: { htm: 'POST', htu: 'https://evil.test/x?q=1' } });
    expect(decode(other).payload).toMatchObject({ htm: 'POST', htu: 'https://evil.test/x?q=1' });
    const missing = createDpopProof({ ...base, claims: { iat: undefined, jti: undefined, htu: undefined } });
    expect(Object.keys(decode(missing).payload).sort()).toEqual(['htm']);
    const extra = createDpopProof({ ...base, header: { kid: 'k1' }, claims: { iat: 'yesterday' } });
    expect(decode(extra).header.kid).toBe('k1');
    expect(decode(extra).payload.iat).toBe('yesterday');
  });

  it('still verifies when only claims change (the signature covers them)', async () => {
    const proof = createDpopProof({ ...base, claims: { htu: 'https://other.test/' } });
    await expect(verifyProof(proof, 'ES256')).resolves.toBeDefined();
  });

  it('refuses bad options with a TypeError naming the option', () => {
    const bad = (options: object) => () => createDpopProof(options as never);
    expect(bad({ ...base, key: {} })).toThrow(/"key" option must be a key from generateDpopKey/);
    expect(bad({ ...base, method: '' })).toThrow(/"method" option must be a non-empty string/);
    expect(bad({ ...base, url: '/orders' })).toThrow(/"url" option must be an absolute URL/);
    expect(bad({ ...base, url: 42 })).toThrow(/"url" option must be a string or URL/);
    expect(bad({ ...base, iat: Number.NaN })).toThrow(/"iat" option must be a finite number/);
    expect(bad({ ...base, nonce: 7 })).toThrow(/"nonce" option must be a string/);
    expect(bad({ ...base, accessToken: '' })).toThrow(/"accessToken" must be a non-empty string/);
    expect(bad({ ...base, header: [] })).toThrow(/"header" option must be an object/);
    expect(bad({ ...base, claims: 'x' })).toThrow(/"claims" option must be an object/);
    expect(() => createDpopProof(undefined as never)).toThrow(/options must be an object/);
  });

  it('copies the key, never shares it: changing a proof header does not change the key', () => {
    const k: DpopKey = key;
    createDpopProof({ ...base, header: { jwk: { ...k.publicJwk, x: 'changed' } } });
    expect(k.publicJwk.x).not.toBe('changed');
  });
});
