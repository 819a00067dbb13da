/**
 * JWKS entries as verification keys (src/jwk.ts): importVerificationKey and keyMatchesAlgorithm, and
 * security catalogue A cases 20, 22, 23, 29, 30 and 36 through a real verifier for every main algorithm.
 */
import { createHmac, generateKeyPairSync, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importKey, sameKey } from '../src/internal/platform.js';
import { importVerificationKey, type KeyEntry, keyMatchesAlgorithm } from '../src/jwk.js';
import type { Algorithm } from '../src/types.js';
import { invalidToken } from './helpers/assertions.js';
import {
  b64url,
  claims,
  MAIN_ALGS,
  makeKey,
  signToken,
  type TestAlg,
  type TestKey,
} from './helpers/fixtures.js';
import { type Harness, startHarness } from './helpers/harness.js';
import { signBytes } from './helpers/tokens.js';

const isRsa = (alg: string) => alg.startsWith('RS') || alg.startsWith('PS');
const ALL: readonly Algorithm[] = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

/** A key pair outside the fixtures (other sizes and curves), with a public JWK. */
function pair(type: 'rsa1024' | 'secp256k1' | 'x25519' | 'ed448', kid: string) {
  const { privateKey, publicKey } =
    type === 'rsa1024'
      ? generateKeyPairSync('rsa', { modulusLength: 1024 })
      : type === 'secp256k1'
        ? generateKeyPairSync('ec', { namedCurve: 'secp256k1' })
        : type === 'x25519'
          ? generateKeyPairSync('x25519')
          : generateKeyPairSync('ed448');
  return {
    privateKey,
    publicKey,
    jwk: { ...publicKey.export({ format: 'jwk' }), kid } as Record<string, unknown>,
  };
}

/** Whether `entry` holds `key`'s public key, compared on the platform under test. */
async function holdsKey(entry: KeyEntry, key: TestKey): Promise<boolean> {
  const members = ['kty', 'crv', 'x', 'y', 'n', 'e'].filter((name) => typeof key.jwk[name] === 'string');
  const expected = await importKey(
    Object.fromEntries(members.map((n) => [n, key.jwk[n] as string])),
    key.alg,
  );
  return expected !== undefined && sameKey(entry.key, expected);
}

describe('importVerificationKey', () => {
  it.each([
    'RS256',
    'RS384',
    'RS512',
    'PS256',
    'PS384',
    'PS512',
    'ES256',
    'ES384',
    'ES512',
    'EdDSA',
  ] as TestAlg[])('imports a %s public JWK as a frozen entry holding the same public key', async (alg) => {
    const key = makeKey(alg);
    const entry = (await importVerificationKey(key.jwk))!;
    expect(entry).toBeDefined();
    expect(Object.isFrozen(entry)).toBe(true);
    expect(entry).toMatchObject({ kid: key.kid, alg, kty: key.jwk.kty, crv: key.jwk.crv });
    expect(await holdsKey(entry, key)).toBe(true);
  });

  it('imports only the public part of a published private JWK', async () => {
    for (const alg of MAIN_ALGS) {
      const key = makeKey(alg);
      const privateJwk = { ...key.privateKey.export({ format: 'jwk' }), kid: key.kid, alg };
      const entry = (await importVerificationKey(privateJwk))!;
      expect(await holdsKey(entry, key)).toBe(true);
    }
  });

  it('keeps alg undefined when the JWK names none, and accepts use: sig and key_ops with verify', async () => {
    const { alg: _alg, ...jwk } = makeKey('RS256').jwk;
    expect((await importVerificationKey(jwk))?.alg).toBeUndefined();
    expect(await importVerificationKey({ ...jwk, use: 'sig', key_ops: ['verify', 'sign'] })).toBeDefined();
    const { use: _use, ...noUse } = makeKey('ES256').jwk;
    expect(await importVerificationKey(noUse)).toBeDefined();
  });

  const rsa = makeKey('RS256').jwk;
  const ec = makeKey('ES256').jwk;
  const refused: Array<[string, () => unknown]> = [
    ['null', () => null],
    ['a string', () => 'jwk'],
    ['a number', () => 42],
    ['an array', () => [rsa]],
    ['kty oct', () => ({ kty: 'oct', k: b64url(randomBytes(32)), kid: 'h', alg: 'HS256' })],
    ['kty oct without alg', () => ({ kty: 'oct', k: b64url(randomBytes(32)) })],
    ['an unknown kty', () => ({ ...rsa, kty: 'XYZ' })],
    ['no kty', () => ({ ...rsa, kty: undefined })],
    ['RSA under 2048 bits', () => ({ ...pair('rsa1024', 'weak').jwk, alg: 'RS256' })],
    ['RSA with an HMAC alg', () => ({ ...rsa, alg: 'HS256' })],
    ['RSA with an encryption alg', () => ({ ...rsa, alg: 'RSA-OAEP' })],
    ['RSA without n', () => ({ ...rsa, n: undefined })],
    ['RSA with a numeric e', () => ({ ...rsa, e: 65537 })],
    ['a non-string kid', () => ({ ...rsa, kid: 1 })],
    ['a non-string alg', () => ({ ...rsa, alg: ['RS256'] })],
    ['use: enc', () => ({ ...rsa, use: 'enc' })],
    ['use: SIG (case-sensitive)', () => ({ ...rsa, use: 'SIG' })],
    ['key_ops without verify', () => ({ ...rsa, key_ops: ['sign', 'encrypt'] })],
    ['empty key_ops', () => ({ ...rsa, key_ops: [] })],
    ['key_ops as a string', () => ({ ...rsa, key_ops: 'verify' })],
    ['EC on secp256k1', () => pair('secp256k1', 'k1').jwk],
    ['EC with an unknown crv', () => ({ ...ec, crv: 'P-192' })],
    ['EC with a point off the curve', () => ({ ...ec, y: ec.x })],
    ['EC with garbage coordinates', () => ({ ...ec, x: 'AAAA' })],
    ['OKP X25519 (key agreement)', () => pair('x25519', 'x').jwk],
    ['OKP Ed448 (not supported by the importer)', () => pair('ed448', 'ed448').jwk],
  ];
  it.each(refused.map(([name]) => name))('refuses %s', async (name) => {
    expect(await importVerificationKey(refused.find(([n]) => n === name)![1]())).toBeUndefined();
  });
});

describe('keyMatchesAlgorithm', () => {
  const entries = new Map<string, KeyEntry>();
  beforeAll(async () => {
    for (const alg of ['RS256', 'PS256', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const) {
      entries.set(alg, (await importVerificationKey(makeKey(alg).jwk))!);
      const { alg: _a, ...noAlg } = makeKey(alg).jwk;
      entries.set(`${alg}/any`, (await importVerificationKey(noAlg))!);
    }
  });
  const allowed = (name: string) => ALL.filter((alg) => keyMatchesAlgorithm(entries.get(name)!, alg));

  it('a JWK with alg verifies only that alg', () => {
    expect(allowed('RS256')).toEqual(['RS256']);
    expect(allowed('PS256')).toEqual(['PS256']);
    expect(allowed('ES256')).toEqual(['ES256']);
    expect(allowed('ES384')).toEqual(['ES384']);
    expect(allowed('ES512')).toEqual(['ES512']);
    expect(allowed('EdDSA')).toEqual(['EdDSA']);
  });

  it('a JWK without alg verifies the algorithms of its key type and curve', () => {
    expect(allowed('RS256/any')).toEqual(['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512']);
    expect(allowed('ES256/any')).toEqual(['ES256']);
    expect(allowed('ES384/any')).toEqual(['ES384']);
    expect(allowed('ES512/any')).toEqual(['ES512']);
    expect(allowed('EdDSA/any')).toEqual(['EdDSA', 'Ed25519']);
  });

  it('never matches an algorithm outside the supported set', () => {
    for (const entry of entries.values()) {
      for (const alg of ['HS256', 'none', 'ES256K', 'RSA-OAEP', ''])
        expect(keyMatchesAlgorithm(entry, alg as Algorithm)).toBe(false);
    }
  });
});

// A JWKS holding, per main algorithm: the key, a second key, two keys sharing a kid, and unusable
// entries (use: enc, key_ops without verify, weak or wrong-kind keys), plus an oct key.
const hmacSecret = randomBytes(32);
const rsa1024 = pair('rsa1024', 'rsa-1024');
const secp256k1 = pair('secp256k1', 'ec-k1');
const x25519 = pair('x25519', 'okp-x25519');
const extra = (alg: TestAlg, name: string, jwk: Record<string, unknown> = {}): TestKey => {
  const key = makeKey(alg, `${alg}-${name}`);
  return { ...key, kid: typeof jwk.kid === 'string' ? jwk.kid : key.kid, jwk: { ...key.jwk, ...jwk } };
};
const perAlg = (alg: TestAlg) => ({
  second: extra(alg, 'second'),
  dup1: extra(alg, 'dup-a', { kid: `${alg}-dup` }),
  dup2: extra(alg, 'dup-b', { kid: `${alg}-dup` }),
  enc: extra(alg, 'enc', { use: 'enc' }),
  opsSign: extra(alg, 'ops-sign', { key_ops: ['sign'] }),
  opsEncrypt: extra(alg, 'ops-encrypt', { key_ops: ['encrypt', 'wrapKey'] }),
  opsEmpty: extra(alg, 'ops-empty', { key_ops: [] }),
  opsVerify: extra(alg, 'ops-verify', { key_ops: ['verify'] }),
});

let harness: Harness;
beforeAll(async () => {
  const keys = MAIN_ALGS.flatMap((alg) => [makeKey(alg), ...Object.values(perAlg(alg))]);
  harness = await startHarness({
    keys: [
      ...keys.map((k) => k.jwk),
      { kty: 'oct', k: b64url(hmacSecret), kid: 'hmac', alg: 'HS256' },
      { kty: 'oct', k: b64url(hmacSecret), kid: 'hmac-any' },
      { ...rsa1024.jwk, alg: 'RS256' },
      { ...rsa1024.jwk, kid: 'rsa-1024-ps', alg: 'PS256' },
      { ...rsa1024.jwk, kid: 'rsa-1024-any' },
      secp256k1.jwk,
      x25519.jwk,
    ],
  });
});
afterAll(() => harness.close());

describe.each(MAIN_ALGS)('%s', (alg) => {
  const key = makeKey(alg);
  const k = perAlg(alg);
  const KEY_NOT_FOUND = invalidToken('key_not_found');
  const SIGNATURE = invalidToken('signature');

  it('control: a valid token verifies, also from a JWK whose key_ops include verify', async () => {
    await expect(harness.verifier().verify(signToken(key))).resolves.toBeDefined();
    await expect(harness.verifier().verify(signToken(k.opsVerify))).resolves.toBeDefined();
  });

  describe('A20: the token alg must match the key', () => {
    it('an alg of another key type with this key’s kid → invalid_token (key_not_found)', async () => {
      for (const other of MAIN_ALGS.filter((a) => isRsa(a) !== isRsa(alg) || (!isRsa(alg) && a !== alg))) {
        const token = signToken(makeKey(other, 'stranger'), claims(), { header: { kid: key.kid } });
        await harness.rejects(token, KEY_NOT_FOUND);
      }
    });

    it('an alg of the same key type that differs from the JWK’s alg → invalid_token (key_not_found)', async () => {
      const header = { kid: key.kid, typ: 'at+jwt' };
      const payload = JSON.stringify(claims());
      const token =
        alg === 'RS256'
          ? signBytes(key, JSON.stringify({ alg: 'PS256', ...header }), payload, 'PS256')
          : alg === 'PS256'
            ? signBytes(key, JSON.stringify({ alg: 'RS256', ...header }), payload, 'RS256')
            : alg === 'ES256'
              ? signBytes(key, JSON.stringify({ alg: 'ES384', ...header }), payload, 'ES384')
              : signBytes(key, JSON.stringify({ alg: 'Ed25519', ...header }), payload, 'EdDSA');
      await harness.rejects(token, KEY_NOT_FOUND);
    });
  });

  describe('A22: symmetric and weak keys in the JWKS are never used', () => {
    it('our alg with the kid of a kty oct entry → invalid_token (key_not_found)', async () => {
      for (const kid of ['hmac', 'hmac-any']) {
        await harness.rejects(signToken(key, claims(), { header: { kid } }), KEY_NOT_FOUND);
      }
    });

    it('HS256 signed with the oct entry’s own secret → invalid_token (algorithm), no JWKS fetch', async () => {
      const input = `${b64url(JSON.stringify({ alg: 'HS256', kid: 'hmac', typ: 'at+jwt' }))}.${b64url(JSON.stringify(claims()))}`;
      const mac = createHmac('sha256', hmacSecret).update(input).digest();
      await harness.rejectsWithoutFetch(`${input}.${b64url(mac)}`, invalidToken('algorithm'));
    });

    if (isRsa(alg)) {
      it('a token signed by a 1024-bit RSA key published in the JWKS → invalid_token (key_not_found)', async () => {
        const weak = { alg, kid: '', privateKey: rsa1024.privateKey, publicKey: rsa1024.publicKey, jwk: {} };
        for (const kid of ['rsa-1024', 'rsa-1024-ps', 'rsa-1024-any']) {
          await harness.rejects(signToken({ ...weak, kid }), KEY_NOT_FOUND);
        }
        await harness.rejects(
          signToken({ ...weak, kid: '' }, claims(), { header: { kid: undefined } }),
          SIGNATURE,
        );
      });
    } else {
      it('a token whose kid names a key on a curve or of a kind that cannot verify it → invalid_token (key_not_found)', async () => {
        const token =
          alg === 'ES256'
            ? signToken({
                alg,
                kid: 'ec-k1',
                privateKey: secp256k1.privateKey,
                publicKey: secp256k1.publicKey,
                jwk: {},
              })
            : signToken(makeKey(alg, 'stranger'), claims(), { header: { kid: 'okp-x25519' } });
        await harness.rejects(token, KEY_NOT_FOUND);
      });
    }
  });

  describe('A23: keys not meant for verification are never used', () => {
    it.each([
      ['use: enc', 'enc'],
      ['key_ops: [sign]', 'opsSign'],
      ['key_ops: [encrypt, wrapKey]', 'opsEncrypt'],
      ['key_ops: []', 'opsEmpty'],
    ] as const)(
      'a token signed by the key published with %s → invalid_token (key_not_found)',
      async (_name, which) => {
        await harness.rejects(signToken(k[which]), KEY_NOT_FOUND);
      },
    );
  });

  describe('A29: kid is an opaque lookup key', () => {
    it.each([
      '../../dev/null',
      '/etc/passwd',
      "' OR '1'='1",
      "'; DROP TABLE keys;--",
      '*)(uid=*))(|(uid=*',
      ['$', '{jndi:ldap://127.0.0.1/x}'].join(''),
      'a\u0000b',
      '%00',
      'кл\u200bюч',
      '',
    ])('kid %j → invalid_token (key_not_found); only the configured JWKS is requested', async (kid) => {
      harness.requested.length = 0;
      await harness.rejects(signToken(key, claims(), { header: { kid } }), KEY_NOT_FOUND);
      expect(harness.requested).toEqual([harness.server.jwksUri]);
    });

    it('a 10 KB kid → invalid_token: token_too_large by default (no fetch), key_not_found with a larger cap', async () => {
      const token = signToken(key, claims(), { header: { kid: 'k'.repeat(10_240) } });
      await harness.rejectsWithoutFetch(token, invalidToken('token_too_large'));
      await harness.rejects(token, KEY_NOT_FOUND, { maxTokenLength: 65_536 });
    });
  });

  describe('A30: prototype member names as kid', () => {
    it.each([
      '__proto__',
      'constructor',
      'toString',
      'hasOwnProperty',
      'valueOf',
      '__defineGetter__',
      'prototype',
    ])('kid %s → invalid_token (key_not_found), no crash', async (kid) => {
      await harness.rejects(signToken(key, claims(), { header: { kid } }), KEY_NOT_FOUND);
    });

    it('keys published under such kids work and are not confused', async () => {
      const special = ['__proto__', 'constructor'].map((kid) => makeKey(alg, kid));
      const own = await startHarness({ keys: special.map((s) => s.jwk) });
      try {
        for (const s of special) {
          await expect(own.verifier().verify(signToken(s))).resolves.toBeDefined();
          await own.rejects(
            signToken(makeKey(alg, 'stranger'), claims(), { header: { kid: s.kid } }),
            SIGNATURE,
          );
        }
        await own.rejects(signToken(key, claims(), { header: { kid: 'toString' } }), KEY_NOT_FOUND);
      } finally {
        await own.close();
      }
    });
  });

  describe('A36: key selection with no kid or duplicate kids', () => {
    it('no kid: every key of the alg is tried, so a token from any of them verifies', async () => {
      for (const signer of [key, k.second, k.dup2]) {
        const token = signToken(signer, claims(), { header: { kid: undefined } });
        await expect(harness.verifier().verify(token)).resolves.toMatchObject({ subject: 'user-42' });
      }
    });

    it('no kid and no key matches → invalid_token (signature)', async () => {
      const token = signToken(makeKey(alg, 'stranger'), claims(), { header: { kid: undefined } });
      await harness.rejects(token, SIGNATURE);
    });

    it('duplicate kids: both keys are tried', async () => {
      for (const signer of [k.dup1, k.dup2]) {
        await expect(harness.verifier().verify(signToken(signer))).resolves.toBeDefined();
      }
    });

    it('a kid is never ignored in favour of other keys, whatever other header fields say', async () => {
      const token = signToken(k.second, claims(), {
        header: { kid: key.kid, jwk: k.second.jwk, x5t: 'x', 'x5t#S256': 'y' },
      });
      await harness.rejects(token, SIGNATURE);
    });

    it('a key unusable for verification is not a candidate even without kid', async () => {
      const token = signToken(k.enc, claims(), { header: { kid: undefined } });
      await harness.rejects(token, SIGNATURE);
    });
  });
});
