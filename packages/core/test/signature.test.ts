/**
 * Signature verification: the platform's verifySignature for every algorithm (node:crypto, or
 * WebCrypto in the core-web project), and security catalogue A cases 19, 21, 24, 25 and 45 through a
 * real verifier for every main algorithm. The Node-only DER conversion is in internal/platform.test.ts.
 */
import { constants, createHmac, sign } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVerifier, SUPPORTED_ALGORITHMS } from '../src/index.js';
import { importKey, PLATFORM, verifySignature } from '../src/internal/platform.js';
import type { Algorithm } from '../src/types.js';
import { invalidToken } from './helpers/assertions.js';
import {
  AUDIENCE,
  b64url,
  claims,
  ISSUER,
  jwksOf,
  MAIN_ALGS,
  makeKey,
  rawSign,
  signToken,
  type TestAlg,
  type TestKey,
} from './helpers/fixtures.js';
import { type Harness, startHarness } from './helpers/harness.js';
import { segments, signatureOf, withSignature } from './helpers/tokens.js';

const ALL_ALGS: readonly TestAlg[] = [
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
];

/**
 * Verify through the platform under test: import `key`'s public members for `importAlg` (its own
 * algorithm by default), then check `signature` as `alg`. Synchronous on Node, a promise on WebCrypto.
 */
async function verify(
  alg: Algorithm,
  key: TestKey,
  data: Uint8Array,
  signature: Uint8Array,
  importAlg: Algorithm = key.alg,
): Promise<boolean> {
  const members = ['kty', 'crv', 'x', 'y', 'n', 'e'].filter((name) => typeof key.jwk[name] === 'string');
  const jwk = Object.fromEntries(members.map((name) => [name, key.jwk[name] as string]));
  const imported = await importKey(jwk, importAlg);
  expect(imported, 'the public key imports').toBeDefined();
  return verifySignature(alg, imported!, data, signature);
}

describe('verifySignature', () => {
  it('runs on the platform of its vitest project (core: node:crypto, core-web: WebCrypto)', () => {
    expect(PLATFORM).toBe(process.env.GATEHOUSE_PLATFORM ?? 'node');
  });

  const data = Buffer.from('header.payload');
  const otherKind = (alg: TestAlg): TestKey =>
    makeKey(alg.startsWith('ES') ? 'RS256' : alg === 'EdDSA' ? 'ES256' : 'EdDSA');

  it.each(ALL_ALGS)('%s: accepts its own signature and refuses any change', async (alg) => {
    const key = makeKey(alg);
    const signature = rawSign(alg, key.privateKey, data.toString());
    expect(await verify(alg, key, data, signature)).toBe(true);
    expect(await verify(alg, key, Buffer.from('header.payloaD'), signature)).toBe(false);
    const flipped = Buffer.from(signature);
    flipped[flipped.length >> 1]! ^= 0x01;
    expect(await verify(alg, key, data, flipped)).toBe(false);
    expect(await verify(alg, key, data, signature.subarray(0, -1))).toBe(false);
    expect(await verify(alg, key, data, Buffer.concat([signature, Buffer.from([0])]))).toBe(false);
    expect(await verify(alg, key, data, Buffer.alloc(0))).toBe(false);
    expect(await verify(alg, key, data, Buffer.alloc(signature.length))).toBe(false);
  });

  it.each(ALL_ALGS)(
    '%s: refuses another key of the same type, and never throws for a key of another type',
    async (alg) => {
      const signature = rawSign(alg, makeKey(alg).privateKey, data.toString());
      expect(await verify(alg, makeKey(alg, 'other'), data, signature)).toBe(false);
      const other = otherKind(alg);
      expect(await verify(alg, other, data, signature, other.alg)).toBe(false);
    },
  );

  it('keeps PKCS#1 v1.5 and PSS apart', async () => {
    const key = makeKey('RS256');
    const pkcs1 = rawSign('RS256', key.privateKey, data.toString());
    const pss = rawSign('PS256', key.privateKey, data.toString());
    expect(await verify('PS256', key, data, pkcs1)).toBe(false);
    expect(await verify('RS256', key, data, pss)).toBe(false);
    expect(await verify('PS256', key, data, pss)).toBe(true);
  });

  it('requires the PSS salt length to equal the hash length (RFC 7518 §3.5)', async () => {
    const key = makeKey('PS256');
    for (const saltLength of [0, 20, constants.RSA_PSS_SALTLEN_MAX_SIGN]) {
      const signature = sign('sha256', data, {
        key: key.privateKey,
        padding: constants.RSA_PKCS1_PSS_PADDING,
        saltLength,
      });
      expect(await verify('PS256', key, data, signature)).toBe(false);
    }
  });

  it('refuses a DER-encoded ECDSA signature (JWS uses R‖S)', async () => {
    const key = makeKey('ES256');
    const der = sign('sha256', data, { key: key.privateKey, dsaEncoding: 'der' });
    expect(await verify('ES256', key, data, der)).toBe(false);
  });

  it('verifies Ed25519 under both EdDSA and the fully-specified Ed25519 name', async () => {
    const key = makeKey('EdDSA');
    const signature = rawSign('EdDSA', key.privateKey, data.toString());
    expect(await verify('EdDSA', key, data, signature)).toBe(true);
    expect(await verify('Ed25519', key, data, signature)).toBe(true);
  });
});

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness(jwksOf(...MAIN_ALGS.map((alg) => makeKey(alg))));
});
afterAll(() => harness.close());

describe.each(MAIN_ALGS)('%s', (alg) => {
  const key = makeKey(alg);
  const valid = () => signToken(key);
  const SIGNATURE = invalidToken('signature');

  it('control: a valid token verifies', async () => {
    await expect(harness.verifier().verify(valid())).resolves.toMatchObject({ subject: 'user-42' });
  });

  describe('A19: HMAC keyed with our public key, in any form', () => {
    const secrets: Array<[string, string | Buffer]> = [
      ['SPKI PEM', key.publicKey.export({ type: 'spki', format: 'pem' }) as string],
      ['SPKI DER', key.publicKey.export({ type: 'spki', format: 'der' })],
      ['PEM with leading whitespace', `\n  ${key.publicKey.export({ type: 'spki', format: 'pem' })}`],
      ['PEM with leading junk', `junk\n${key.publicKey.export({ type: 'spki', format: 'pem' })}`],
      ['JWK JSON text', JSON.stringify(key.jwk)],
      [
        'JWK JSON text without kid',
        JSON.stringify({ ...key.jwk, kid: undefined, alg: undefined, use: undefined }),
      ],
    ];
    if (alg.startsWith('RS') || alg.startsWith('PS')) {
      secrets.push([
        'PKCS#1 PEM (BEGIN RSA PUBLIC KEY)',
        key.publicKey.export({ type: 'pkcs1', format: 'pem' }) as string,
      ]);
    }
    const cases = secrets.flatMap(([form, secret]) =>
      (['HS256', 'HS384', 'HS512'] as const).map((hs) => ({ name: `${hs} with ${form}`, hs, secret })),
    );

    it.each(cases)('$name → invalid_token, no JWKS fetch', async ({ hs, secret }) => {
      const { header, payload } = segments(signToken(key, claims(), { header: { alg: hs } }));
      const mac = createHmac(`sha${hs.slice(2)}`, secret)
        .update(`${header}.${payload}`)
        .digest();
      await harness.rejectsWithoutFetch(`${header}.${payload}.${b64url(mac)}`, invalidToken('algorithm'));
    });

    it.each(['HS256', 'HS384', 'HS512'])('%s can never be configured', (hs) => {
      expect(() =>
        createVerifier({
          issuer: ISSUER,
          audience: AUDIENCE,
          jwksUri: harness.server.jwksUri,
          algorithms: [hs as Algorithm],
        }),
      ).toThrow(/"algorithms" option/);
    });
  });

  describe('A21: a supported alg outside the configured allow-list', () => {
    it('→ invalid_token, no JWKS fetch', async () => {
      const others = MAIN_ALGS.filter((a) => a !== alg);
      await harness.rejectsWithoutFetch(valid(), invalidToken('algorithm'), { algorithms: others });
    });

    it('→ invalid_token for every other single-algorithm allow-list', async () => {
      for (const only of SUPPORTED_ALGORITHMS.filter((a) => a !== alg)) {
        await harness.rejectsWithoutFetch(valid(), invalidToken('algorithm'), { algorithms: [only] });
      }
      await expect(harness.verifier({ algorithms: [alg] }).verify(valid())).resolves.toBeDefined();
    });
  });

  describe('A24: degenerate and mis-encoded signatures', () => {
    const size = signatureOf(signToken(key)).length;
    const variants = (): Array<[string, Buffer]> => {
      const real = signatureOf(valid());
      const out: Array<[string, Buffer]> = [
        ['all zeros', Buffer.alloc(size)],
        ['r = s = 0 as DER (MAYCAQACAQA)', Buffer.from('MAYCAQACAQA', 'base64url')],
        ['all 0xff', Buffer.alloc(size, 0xff)],
        ['one zero byte', Buffer.alloc(1)],
      ];
      if (alg === 'ES256') {
        const { header, payload } = segments(valid());
        const der = sign('sha256', Buffer.from(`${header}.${payload}`), {
          key: key.privateKey,
          dsaEncoding: 'der',
        });
        out.push(['DER instead of R‖S', der]);
        out.push(['R = 0 with a real S', Buffer.concat([Buffer.alloc(32), real.subarray(32)])]);
        out.push(['S = 0 with a real R', Buffer.concat([real.subarray(0, 32), Buffer.alloc(32)])]);
        out.push(['R‖S swapped', Buffer.concat([real.subarray(32), real.subarray(0, 32)])]);
      } else {
        out.push([
          'the real signature wrapped in DER',
          Buffer.concat([Buffer.from([0x04, 0x82, size >> 8, size & 0xff]), real]),
        ]);
      }
      return out;
    };

    it.each(variants().map(([name]) => name))('%s → invalid_token (signature)', async (name) => {
      const token = withSignature(valid(), variants().find(([n]) => n === name)![1]);
      await harness.rejects(token, SIGNATURE);
    });

    it('the same refusals through ECDSA signatures of the other sizes', async () => {
      if (alg !== 'ES256') return;
      const data = Buffer.from('x.y');
      for (const other of ['ES384', 'ES512'] as const) {
        const k = makeKey(other);
        const real = rawSign(other, k.privateKey, 'x.y');
        const der = sign(`sha${other.slice(2)}`, data, { key: k.privateKey, dsaEncoding: 'der' });
        expect(await verify(other, k, data, real)).toBe(true);
        expect(await verify(other, k, data, Buffer.alloc(real.length))).toBe(false);
        expect(await verify(other, k, data, der)).toBe(false);
      }
    });
  });

  describe('A25: any change to a signed token', () => {
    it.each([0, 1, 7, 8, 100, -8, -1])(
      'one flipped bit at signature bit %i → invalid_token (signature)',
      async (bit) => {
        const token = valid();
        const signature = signatureOf(token);
        const index = bit < 0 ? signature.length * 8 + bit : bit;
        signature[index >> 3]! ^= 0x80 >> (index & 7);
        await harness.rejects(withSignature(token, signature), SIGNATURE);
      },
    );

    it.each([
      ['one byte', 1],
      ['two bytes', 2],
      ['half of it', 0.5],
    ])('signature truncated by %s → invalid_token (signature)', async (_name, cut) => {
      const token = valid();
      const signature = signatureOf(token);
      const n = cut < 1 ? Math.floor(signature.length * cut) : cut;
      await harness.rejects(withSignature(token, signature.subarray(0, signature.length - n)), SIGNATURE);
    });

    it('signature with an extra byte → invalid_token (signature)', async () => {
      const token = valid();
      await harness.rejects(
        withSignature(token, Buffer.concat([signatureOf(token), Buffer.from([0])])),
        SIGNATURE,
      );
    });

    it('every other last character of the signature segment → invalid_token (none decodes to the same bytes)', async () => {
      const token = valid();
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
      const verifier = harness.verifier();
      for (const c of alphabet) {
        if (c === token.at(-1)) continue;
        const altered = token.slice(0, -1) + c;
        const error = await verifier.verify(altered).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error, `last character ${c}`).toMatchObject({ status: 401, code: 'invalid_token' });
        expect(['signature', 'malformed']).toContain((error as { reason: string }).reason);
      }
    });

    it('payload edited after signing → invalid_token (signature)', async () => {
      const { header, signature } = segments(valid());
      for (const edit of [
        { sub: 'admin' },
        { scope: 'admin' },
        { exp: 9_999_999_999 },
        { aud: [AUDIENCE, 'https://evil.test'] },
      ]) {
        const payload = b64url(JSON.stringify(claims(edit)));
        await harness.rejects(`${header}.${payload}.${signature}`, SIGNATURE);
      }
    });

    it('header edited after signing → invalid_token (signature)', async () => {
      const { payload, signature } = segments(valid());
      const header = b64url(JSON.stringify({ alg, kid: key.kid, typ: 'at+jwt', x: 1 }));
      await harness.rejects(`${header}.${payload}.${signature}`, SIGNATURE);
    });

    it('header and payload swapped → invalid_token', async () => {
      const { header, payload, signature } = segments(valid());
      await harness.rejectsWithoutFetch(`${payload}.${header}.${signature}`, invalidToken('malformed'));
    });

    it('a signature from another token → invalid_token (signature)', async () => {
      const other = signToken(key, claims({ sub: 'someone-else' }));
      await harness.rejects(withSignature(valid(), segments(other).signature), SIGNATURE);
    });
  });

  describe('A45: a bad signature is reported before any claim is looked at', () => {
    const forged = (overrides: Record<string, unknown>) => {
      const token = signToken(key, claims(overrides));
      const signature = signatureOf(token);
      signature[0]! ^= 0x01;
      return withSignature(token, signature);
    };
    it.each([
      ['wrong aud', { aud: 'https://other.test' }],
      ['expired', { exp: 1, iat: 0 }],
      ['wrong aud and expired', { aud: 'https://other.test', exp: 1 }],
      ['wrong iss', { iss: 'https://evil.test' }],
      ['not yet valid', { nbf: 9_999_999_999 }],
      ['invalid act', { act: 'x' }],
      ['exp missing', { exp: undefined }],
    ])(
      '%s plus a bad signature → invalid_token (signature), no claim value echoed',
      async (_name, overrides) => {
        const error = await harness.rejects(forged({ ...overrides, sub: 'CLAIM-MARKER' }), SIGNATURE);
        const exposed = [
          error.message,
          error.description,
          JSON.stringify(error),
          JSON.stringify(error.headers),
        ].join('\n');
        expect(exposed).not.toContain('CLAIM-MARKER');
        expect(exposed).not.toContain('other.test');
        expect(exposed).not.toContain('evil.test');
      },
    );
  });
});
