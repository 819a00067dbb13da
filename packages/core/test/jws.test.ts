/**
 * JWS shape and header handling (src/jws.ts): the JwsParser unit, and security catalogue A cases
 * 8–18, 26–28 and 31 through a real verifier against a loopback JWKS, for every main algorithm.
 */
import { randomBytes } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import { CompactEncrypt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVerifier, InvalidTokenError } from '../src/index.js';
import { JwsParser } from '../src/jws.js';
import { invalidToken } from './helpers/assertions.js';
import {
  b64url,
  claims,
  ISSUER,
  jwksOf,
  MAIN_ALGS,
  makeKey,
  signToken,
  type TestKey,
} from './helpers/fixtures.js';
import { type Harness, startHarness } from './helpers/harness.js';
import { type JwksServer, startJwksServer } from './helpers/jwks-server.js';
import { compact, segments, signBytes } from './helpers/tokens.js';
import { selfSignedCertificate } from './helpers/x509.js';

const MALFORMED = invalidToken('malformed');
const ALGORITHM = invalidToken('algorithm');

describe('JwsParser', () => {
  const key = makeKey('ES256');
  const context = { realm: 'orders' };
  const parser = new JwsParser(new Set(['ES256', 'RS256']), context);

  it('splits and decodes a compact JWS', () => {
    const payload = claims();
    const token = signToken(key, payload);
    const { header, payload: h, signature } = segments(token);
    const parsed = parser.parse(token);
    expect(parsed.header).toEqual({ alg: 'ES256', kid: key.kid, typ: 'at+jwt' });
    expect(Object.isFrozen(parsed.header)).toBe(true);
    expect(parsed.payload).toEqual(payload);
    expect(Buffer.from(parsed.signingInput).toString('latin1')).toBe(`${header}.${h}`);
    expect(Buffer.from(parsed.signature).equals(Buffer.from(signature, 'base64url'))).toBe(true);
  });

  it('leaves kid and typ undefined when absent and ignores unknown header members', () => {
    const token = signToken(key, claims(), {
      header: { kid: undefined, typ: undefined, cty: 'x', x5t: 'abc' },
    });
    expect(parser.parse(token).header).toEqual({ alg: 'ES256', kid: undefined, typ: undefined });
  });

  it('memoizes decoded headers by their encoded form, and keeps working past the memo bound', () => {
    const a = parser.parse(signToken(key, claims({ sub: 'a' })));
    const b = parser.parse(signToken(key, claims({ sub: 'b' })));
    expect(b.header).toBe(a.header);
    for (let i = 0; i < 300; i++) {
      expect(parser.parse(signToken(key, claims(), { header: { kid: `k${i}` } })).header.kid).toBe(`k${i}`);
    }
    expect(parser.parse(signToken(key, claims())).header).toEqual(a.header);
  });

  it('reports a refused alg as "algorithm" and a broken header as "malformed"', () => {
    const reasonOf = (token: string) => {
      try {
        parser.parse(token);
      } catch (error) {
        expect(error).toBeInstanceOf(InvalidTokenError);
        return (error as InvalidTokenError).reason;
      }
      return 'parsed';
    };
    expect(reasonOf(signToken(makeKey('EdDSA')))).toBe('algorithm');
    expect(reasonOf(signToken(key, claims(), { header: { alg: 'none' } }))).toBe('algorithm');
    expect(reasonOf(signToken(key, claims(), { header: { alg: 7 } }))).toBe('malformed');
    expect(reasonOf(signToken(key, claims(), { header: { alg: '' } }))).toBe('malformed');
    expect(reasonOf(signToken(key, claims(), { header: { enc: 'A256GCM' } }))).toBe('malformed');
    expect(reasonOf('a.b')).toBe('malformed');
  });

  it('does not memoize a refused header', () => {
    const strictParser = new JwsParser(new Set(['RS256']), {});
    const token = signToken(key);
    expect(() => strictParser.parse(token)).toThrow(InvalidTokenError);
    expect(() => strictParser.parse(token)).toThrow(InvalidTokenError);
  });

  it('puts the verifier context in the challenge of its errors', () => {
    try {
      parser.parse('x');
      expect.unreachable();
    } catch (error) {
      expect((error as InvalidTokenError).headers['www-authenticate']).toMatch(
        /^Bearer realm="orders", error="invalid_token"/,
      );
    }
  });
});

let harness: Harness;
let attacker: JwksServer;
const keys = MAIN_ALGS.map((alg) => makeKey(alg));

beforeAll(async () => {
  harness = await startHarness(jwksOf(...keys));
  attacker = await startJwksServer(jwksOf(...MAIN_ALGS.map((alg) => makeKey(alg, 'attacker'))));
});
afterAll(async () => {
  await harness.close();
  await attacker.close();
});

describe.each(MAIN_ALGS)('%s', (alg) => {
  const key = makeKey(alg);
  const valid = () => signToken(key);

  it('control: a well-formed token verifies', async () => {
    await expect(harness.verifier().verify(valid())).resolves.toMatchObject({ subject: 'user-42' });
  });

  describe('A8: compact serialization only, strict base64url', () => {
    const variants = (): Array<[string, string]> => {
      const t = valid();
      const { header: h, payload: p, signature: s } = segments(t);
      return [
        ['one segment', h],
        ['two segments', `${h}.${p}`],
        ['four segments', `${t}.${s}`],
        ['trailing dot', `${t}.`],
        ['empty string', ''],
        ['only dots', '..'],
        ['empty header', `.${p}.${s}`],
        ['empty payload', `${h}..${s}`],
        ['empty signature', `${h}.${p}.`],
        ['padded header', `${h}=.${p}.${s}`],
        ['padded payload', `${h}.${p}==.${s}`],
        ['padded signature', `${t}=`],
        ['"+" in signature', `${h}.${p}.+${s.slice(1)}`],
        ['"/" in signature', `${h}.${p}./${s.slice(1)}`],
        ['"+" in header', `+${h.slice(1)}.${p}.${s}`],
        ['leading space', ` ${t}`],
        ['trailing space', `${t} `],
        ['trailing newline', `${t}\n`],
        ['space inside', `${h}. ${p}.${s}`],
        ['tab inside', `${h}.${p}\t.${s}`],
        ['no-break space', `${t}\u00a0`],
        ['non-ASCII letter', `${h}.${p}é.${s}`],
        ['impossible segment length', `${h}.${p}.${s}${'A'.repeat((5 - (s.length % 4)) % 4)}`],
      ];
    };
    it.each(variants().map(([name]) => name))('%s → invalid_token, no JWKS fetch', async (name) => {
      const token = variants().find(([n]) => n === name)![1];
      await harness.rejectsWithoutFetch(token, MALFORMED);
    });
  });

  describe('A9: JWE is never decrypted', () => {
    const payload = new TextEncoder().encode(JSON.stringify(claims()));

    it('a 5-segment JWE encrypted to our own published key → invalid_token, no JWKS fetch', async () => {
      const algs =
        key.alg.startsWith('RS') || key.alg.startsWith('PS')
          ? ['RSA-OAEP', 'RSA-OAEP-256']
          : key.alg === 'ES256'
            ? ['ECDH-ES+A256KW', 'ECDH-ES']
            : ['dir'];
      for (const keyAlg of algs) {
        const encryptionKey = keyAlg === 'dir' ? randomBytes(32) : key.publicKey;
        const jwe = await new CompactEncrypt(payload)
          .setProtectedHeader({ alg: keyAlg, enc: 'A256GCM', kid: key.kid, typ: 'at+jwt', cty: 'JWT' })
          .encrypt(encryptionKey);
        expect(jwe.split('.')).toHaveLength(5);
        await harness.rejectsWithoutFetch(jwe, MALFORMED);
      }
    });

    it('a JWE-shaped 5-segment token using our alg and kid → invalid_token, no JWKS fetch', async () => {
      const header = b64url(JSON.stringify({ alg, enc: 'A256GCM', kid: key.kid }));
      const rest = [randomBytes(32), randomBytes(12), payload, randomBytes(16)].map((b) => b64url(b));
      await harness.rejectsWithoutFetch([header, ...rest].join('.'), MALFORMED);
    });

    it('a validly signed 3-segment token whose header carries "enc" → invalid_token, no JWKS fetch', async () => {
      await harness.rejectsWithoutFetch(signToken(key, claims(), { header: { enc: 'A256GCM' } }), MALFORMED);
    });
  });

  describe('A10: PBES2 with a huge p2c is refused before any key derivation', () => {
    const pbes2 = {
      alg: 'PBES2-HS512+A256KW',
      enc: 'A256GCM',
      p2c: 2147483647,
      p2s: b64url(randomBytes(16)),
    };

    it('5-segment PBES2 JWE → invalid_token well within a second (a PBES2 run with this p2c takes minutes), no JWKS fetch', async () => {
      const token = [JSON.stringify(pbes2), 'k', 'iv', 'ct', 'tag'].map((part) => b64url(part)).join('.');
      const started = performance.now();
      await harness.rejectsWithoutFetch(token, MALFORMED);
      expect(performance.now() - started).toBeLessThan(1_000);
    });

    it('3-segment token with a PBES2 alg → invalid_token (algorithm) well within a second (a PBES2 run with this p2c takes minutes), no JWKS fetch', async () => {
      const token = compact(
        JSON.stringify({ ...pbes2, enc: undefined }),
        JSON.stringify(claims()),
        b64url(randomBytes(32)),
      );
      const started = performance.now();
      await harness.rejectsWithoutFetch(token, ALGORITHM);
      expect(performance.now() - started).toBeLessThan(1_000);
    });
  });

  describe('A11: zip (DEF) is never inflated', () => {
    it('a real JWE with zip: DEF → invalid_token, no JWKS fetch', async () => {
      const bomb = new TextEncoder().encode(JSON.stringify({ ...claims(), pad: '0'.repeat(1_000_000) }));
      const jwe = await new CompactEncrypt(bomb)
        .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', zip: 'DEF', kid: key.kid })
        .encrypt(randomBytes(32));
      await harness.rejectsWithoutFetch(jwe, MALFORMED);
    });

    it('a validly signed JWS with zip: DEF and a deflated payload → invalid_token, no JWKS fetch', async () => {
      const header = JSON.stringify({ alg, kid: key.kid, typ: 'at+jwt', zip: 'DEF' });
      const token = signBytes(key, header, deflateRawSync(Buffer.from(JSON.stringify(claims()))));
      await harness.rejectsWithoutFetch(token, MALFORMED);
    });

    it('a validly signed JWS with zip: DEF and a plain JSON payload → invalid_token, no JWKS fetch', async () => {
      await harness.rejectsWithoutFetch(signToken(key, claims(), { header: { zip: 'DEF' } }), MALFORMED);
    });
  });

  describe('A12: JSON serialization and polyglots', () => {
    const forms = (): Array<[string, string]> => {
      const { header: h, payload: p, signature: s } = segments(valid());
      const forged = b64url(JSON.stringify(claims({ sub: 'admin' })));
      return [
        ['flattened', JSON.stringify({ protected: h, payload: p, signature: s })],
        ['general', JSON.stringify({ payload: p, signatures: [{ protected: h, signature: s }] })],
        [
          'general with two signatures',
          JSON.stringify({
            payload: p,
            signatures: [
              { protected: h, signature: s },
              { protected: h, signature: s },
            ],
          }),
        ],
        [
          'polyglot (CVE-2022-39227)',
          `{"  ${h}.${forged}.":"","protected":"${h}","payload":"${p}","signature":"${s}"}`,
        ],
        ['compact followed by JSON', `${h}.${p}.${s}{"payload":"${forged}"}`],
        [
          'JSON base64url-encoded as a segment',
          `${b64url(JSON.stringify({ protected: h, payload: p }))}.${p}.${s}`,
        ],
      ];
    };
    it.each(forms().map(([name]) => name))('%s → invalid_token, no JWKS fetch', async (name) => {
      await harness.rejectsWithoutFetch(forms().find(([n]) => n === name)![1], MALFORMED);
    });
  });

  describe('A13: header and payload must be UTF-8 JSON objects', () => {
    const headerJson = JSON.stringify({ alg, kid: key.kid, typ: 'at+jwt' });
    const payloadJson = JSON.stringify(claims());
    const bad: Array<[string, string | Uint8Array]> = [
      ['an array', '[]'],
      ['a string', '"x"'],
      ['null', 'null'],
      ['a number', '42'],
      ['true', 'true'],
      ['empty text', ''],
      ['trailing garbage', '{}x'],
      ['two objects', '{}{}'],
      ['a byte-order mark', '\ufeff{}'],
      ['invalid UTF-8 (0xff)', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d])],
      [
        'an overlong UTF-8 encoding',
        Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc0, 0xaf, 0x22, 0x7d]),
      ],
      [
        'an encoded UTF-16 surrogate',
        Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]),
      ],
      ['single quotes', "{'alg':'x'}"],
    ];

    it.each(bad.map(([name]) => name))('header that is %s → invalid_token, no JWKS fetch', async (name) => {
      const text = bad.find(([n]) => n === name)![1];
      await harness.rejectsWithoutFetch(signBytes(key, text, payloadJson), MALFORMED);
    });

    it.each(bad.map(([name]) => name))('payload that is %s → invalid_token, no JWKS fetch', async (name) => {
      const text = bad.find(([n]) => n === name)![1];
      await harness.rejectsWithoutFetch(signBytes(key, headerJson, text), MALFORMED);
    });

    it('a header object whose alg is only inherited via "__proto__" → invalid_token, no JWKS fetch', async () => {
      const token = signBytes(key, `{"__proto__":{"alg":"${alg}"},"kid":"${key.kid}"}`, payloadJson);
      await harness.rejectsWithoutFetch(token, MALFORMED);
    });
  });

  describe('A14: duplicate member names are refused, never "last one wins"', () => {
    const p = JSON.stringify(claims());
    const c = claims();
    const headers: Array<[string, string]> = [
      ['alg twice, none last', `{"alg":"${alg}","kid":"${key.kid}","typ":"at+jwt","alg":"none"}`],
      ['alg twice, ours last', `{"alg":"none","kid":"${key.kid}","typ":"at+jwt","alg":"${alg}"}`],
      ['kid twice', `{"alg":"${alg}","kid":"other","typ":"at+jwt","kid":"${key.kid}"}`],
      ['typ twice', `{"alg":"${alg}","kid":"${key.kid}","typ":"dpop+jwt","typ":"at+jwt"}`],
      ['alg twice via an escape', `{"alg":"none","kid":"${key.kid}","\\u0061lg":"${alg}"}`],
    ];
    const payloads: Array<[string, string]> = [
      ['sub twice', p.replace('{', '{"sub":"admin",')],
      ['iss twice', p.replace('{', '{"iss":"https://evil.test",')],
      ['exp twice', p.replace('{', `{"exp":${(c.exp as number) + 1e6},`)],
      ['a nested duplicate in act', p.replace('{', '{"act":{"sub":"a","sub":"b"},')],
      ['a duplicate three levels down', p.replace('{', '{"x":{"y":[{"z":1,"z":2}]},')],
      ['sub twice via an escape', p.replace('{', '{"s\\u0075b":"admin",')],
    ];
    it.each(headers.map(([n]) => n))('header with %s → invalid_token, no JWKS fetch', async (name) => {
      const text = headers.find(([n]) => n === name)![1];
      await harness.rejectsWithoutFetch(signBytes(key, text, p), MALFORMED);
    });
    it.each(payloads.map(([n]) => n))('payload with %s → invalid_token, no JWKS fetch', async (name) => {
      const text = payloads.find(([n]) => n === name)![1];
      await harness.rejectsWithoutFetch(signToken(key, claims(), { payloadText: text }), MALFORMED);
    });
  });

  describe('A15: unencoded payloads (RFC 7797) are refused', () => {
    it.each([
      ['b64: false with crit', { b64: false, crit: ['b64'] }],
      ['b64: false without crit', { b64: false }],
      ['b64: true', { b64: true }],
    ])('%s → invalid_token, no JWKS fetch', async (_name, header) => {
      await harness.rejectsWithoutFetch(signToken(key, claims(), { header }), MALFORMED);
    });

    it('an RFC 7797 unencoded payload signed over the raw text → invalid_token, no JWKS fetch', async () => {
      const header = b64url(JSON.stringify({ alg, kid: key.kid, b64: false, crit: ['b64'] }));
      const raw = JSON.stringify({ sub: 'admin' });
      const detached = signBytes(key, JSON.stringify({ alg, kid: key.kid, b64: false, crit: ['b64'] }), raw);
      await harness.rejectsWithoutFetch(`${header}.${raw}.${segments(detached).signature}`, MALFORMED);
    });
  });

  describe('A16: crit is never satisfied', () => {
    it.each([
      ['an unknown extension', { crit: ['urn:example:ext'], 'urn:example:ext': 1 }],
      ['an empty list', { crit: [] }],
      ['a standard header (alg)', { crit: ['alg'] }],
      ['a standard header (kid)', { crit: ['kid'] }],
      ['a claim name', { crit: ['exp'] }],
      ['a string instead of a list', { crit: 'b64' }],
      ['null', { crit: null }],
    ])('crit naming %s → invalid_token, no JWKS fetch', async (_name, header) => {
      await harness.rejectsWithoutFetch(signToken(key, claims(), { header }), MALFORMED);
    });
  });

  describe('A17: typ', () => {
    const withTyp = (typ: unknown) => signToken(key, claims(), { header: { typ } });

    it.each([undefined, 'JWT', 'jwt', 'application/jwt', 'at+jwt', 'AT+JWT', 'application/at+jwt'])(
      'default mode accepts typ %s',
      async (typ) => {
        await expect(harness.verifier().verify(withTyp(typ))).resolves.toMatchObject({ subject: 'user-42' });
      },
    );

    it.each([
      'dpop+jwt',
      'logout+jwt',
      'secevent+jwt',
      'application/secevent+jwt',
      'JOSE',
      '',
      'at+jwt ',
      'at+jwt;x',
    ])('default mode refuses typ %j → invalid_token (typ)', async (typ) => {
      await harness.rejects(withTyp(typ), invalidToken('typ'));
    });

    it.each(['at+jwt', 'AT+JWT', 'application/at+jwt', 'Application/At+Jwt'])(
      'strict mode accepts typ %s',
      async (typ) => {
        await expect(harness.verifier({ strict: true }).verify(withTyp(typ))).resolves.toMatchObject({
          subject: 'user-42',
        });
      },
    );

    it.each([undefined, 'JWT', 'jwt', 'application/jwt', 'dpop+jwt', 'logout+jwt', 'secevent+jwt'])(
      'strict mode refuses typ %s → invalid_token (typ)',
      async (typ) => {
        await harness.rejects(withTyp(typ), invalidToken('typ'), { strict: true });
      },
    );

    it('the typ check runs after the signature: a forged token with a bad typ reports the signature', async () => {
      const forged = signToken(makeKey(alg, 'forger'), claims(), {
        header: { kid: key.kid, typ: 'dpop+jwt' },
      });
      await harness.rejects(forged, invalidToken('signature'), { strict: true });
      await harness.rejects(forged, invalidToken('signature'));
    });

    it.each([1, null, true, ['at+jwt'], { v: 'at+jwt' }])(
      'a typ of %j → invalid_token, no JWKS fetch',
      async (typ) => {
        await harness.rejectsWithoutFetch(withTyp(typ), MALFORMED);
      },
    );
  });

  describe('A18: alg none and empty signatures', () => {
    const unsigned = (name: string, signature: string) => {
      const { payload } = segments(valid());
      return `${b64url(JSON.stringify({ alg: name, kid: key.kid, typ: 'at+jwt' }))}.${payload}.${signature}`;
    };

    it.each(['none', 'None', 'NONE', 'nOnE'])(
      'alg %s with an empty signature → invalid_token, no JWKS fetch',
      async (name) => {
        await harness.rejectsWithoutFetch(unsigned(name, ''), ALGORITHM);
      },
    );

    it.each(['none', 'None', 'NONE'])(
      'alg %s with a signature → invalid_token, no JWKS fetch',
      async (name) => {
        await harness.rejectsWithoutFetch(unsigned(name, segments(valid()).signature), ALGORITHM);
      },
    );

    it('our alg with an empty signature → invalid_token, no JWKS fetch', async () => {
      await harness.rejectsWithoutFetch(unsigned(alg, ''), MALFORMED);
    });

    it.each([
      ['missing', undefined],
      ['empty', ''],
      ['a number', 256],
      ['null', null],
      ['a list', [alg]],
    ])('alg %s → invalid_token, no JWKS fetch', async (_name, value) => {
      await harness.rejectsWithoutFetch(signToken(key, claims(), { header: { alg: value } }), MALFORMED);
    });

    it('"none" cannot be configured', () => {
      expect(() =>
        createVerifier({
          issuer: ISSUER,
          audience: 'x',
          jwksUri: harness.server.jwksUri,
          algorithms: ['none' as 'RS256'],
        }),
      ).toThrow(/"algorithms"/);
    });
  });

  describe('A26–A28: keys in the header are never used', () => {
    const forger: TestKey = makeKey(alg, 'attacker');
    const attackerHits = () => [...attacker.hits.values()].reduce((a, b) => a + b, 0);

    it('A26: header jwk with the attacker key and our kid → invalid_token (signature)', async () => {
      const token = signToken(forger, claims(), { header: { kid: key.kid, jwk: forger.jwk } });
      await harness.rejects(token, invalidToken('signature'));
    });

    it('A26: header jwk with the attacker key and no kid → invalid_token (signature)', async () => {
      const token = signToken(forger, claims(), { header: { kid: undefined, jwk: forger.jwk } });
      await harness.rejects(token, invalidToken('signature'));
    });

    it('A26: header jwk with the attacker key and the attacker kid → invalid_token (key_not_found)', async () => {
      const token = signToken(forger, claims(), { header: { jwk: forger.jwk } });
      await harness.rejects(token, invalidToken('key_not_found'));
    });

    it('A26: header jwk naming our own public key, signed by the attacker → invalid_token (signature)', async () => {
      const token = signToken(forger, claims(), { header: { kid: key.kid, jwk: key.jwk } });
      await harness.rejects(token, invalidToken('signature'));
    });

    it.each([
      ['jku to the attacker', 'jku', 'attacker-jwks'],
      ['x5u to the attacker', 'x5u', 'attacker-cert'],
      ['jku to the metadata service', 'jku', 'http://169.254.169.254/latest/meta-data/'],
      ['x5u to the metadata service', 'x5u', 'http://169.254.169.254/latest/meta-data/'],
    ])('A27: %s → invalid_token and no request leaves for it', async (_name, param, target) => {
      const url =
        target === 'attacker-jwks'
          ? attacker.jwksUri
          : target === 'attacker-cert'
            ? `${attacker.origin}/cert.pem`
            : target;
      const before = attackerHits();
      harness.requested.length = 0;
      for (const kid of [forger.kid, key.kid]) {
        const token = signToken(forger, claims(), { header: { kid, [param]: url } });
        await harness.rejects(token, invalidToken(kid === key.kid ? 'signature' : 'key_not_found'));
      }
      expect(attackerHits()).toBe(before);
      expect(new Set(harness.requested)).toEqual(new Set([harness.server.jwksUri]));
    });

    it('A28: a real self-signed x5c chain → invalid_token', async () => {
      const x5c = [selfSignedCertificate(forger.privateKey, forger.publicKey).toString('base64')];
      await harness.rejects(signToken(forger, claims(), { header: { x5c } }), invalidToken('key_not_found'));
      await harness.rejects(
        signToken(forger, claims(), { header: { kid: key.kid, x5c } }),
        invalidToken('signature'),
      );
      await harness.rejects(
        signToken(forger, claims(), { header: { kid: undefined, x5c } }),
        invalidToken('signature'),
      );
    });
  });

  describe('A31: kid must be a string', () => {
    it.each([
      ['a number', 1],
      ['an object', { kid: key.kid }],
      ['an array', [key.kid]],
      ['null', null],
      ['a boolean', true],
    ])('kid that is %s → invalid_token, no JWKS fetch', async (_name, kid) => {
      await harness.rejectsWithoutFetch(signToken(key, claims(), { header: { kid } }), MALFORMED);
    });
  });
});
