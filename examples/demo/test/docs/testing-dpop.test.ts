/**
 * The DPoP samples of docs/testing.md §14 (the mTLS ones are testing-mtls.test.ts). The proofs are
 * checked twice: by hand, step by step as RFC 9449 §4.3 lists them, with node:crypto and independently
 * of the packages under test — and by @gatehouse/core's verifier, which must agree with every verdict.
 */
import { createHash, createPublicKey, verify } from 'node:crypto';
import { createVerifier } from '@gatehouse/core';
import { createDpopProof, createTestIssuer, generateDpopKey } from '@gatehouse/testing';
import { describe, expect, it } from 'vitest';

const issuer = await createTestIssuer();

const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('base64url');
const decode = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));

/** RFC 7638 thumbprint of an EC public JWK, computed here rather than by the package under test. */
const jkt = (jwk: { crv: string; kty: string; x: string; y: string }) =>
  sha256(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y }));

/**
 * Check an ES256 DPoP proof sent with `token` on `method url` as a resource server does (RFC 9449 §4.3
 * and §7.1): the first failing check, or `ok`.
 */
function checkProof(proof: string, method: string, url: string, token: string): string {
  const [h = '', p = '', s = ''] = proof.split('.');
  const header = decode(h);
  const claims = decode(p);
  if (header.typ !== 'dpop+jwt') return 'typ';
  if (header.alg !== 'ES256') return 'alg';
  if (typeof header.jwk !== 'object' || 'd' in header.jwk) return 'jwk';
  const key = createPublicKey({ key: header.jwk, format: 'jwk' });
  const signature = Buffer.from(s, 'base64url');
  if (!verify('sha256', Buffer.from(`${h}.${p}`), { key, dsaEncoding: 'ieee-p1363' }, signature)) {
    return 'signature';
  }
  if (claims.htm !== method) return 'htm';
  if (claims.htu !== url) return 'htu';
  if (typeof claims.iat !== 'number' || Math.abs(Date.now() / 1000 - claims.iat) > 60) return 'iat';
  if (typeof claims.jti !== 'string' || claims.jti.length < 16) return 'jti';
  if (claims.ath !== sha256(token)) return 'ath';
  if (decode(token.split('.')[1]!).cnf?.jkt !== jkt(header.jwk)) return 'binding';
  return 'ok';
}

describe('14. DPoP', async () => {
  const key = await generateDpopKey(); // ES256; or 'EdDSA', 'RS256', 'PS256'
  const token = await issuer.sign({ scope: 'read:orders' }, { dpop: key }); // cnf.jkt = key.thumbprint
  const url = 'https://api.gatehouse.test/orders';
  const proof = createDpopProof({ key, method: 'GET', url, accessToken: token });
  // send both: Authorization: DPoP <token>, DPoP: <proof>

  it('binds the token to the key, and the proof passes every check of RFC 9449 §4.3', () => {
    expect(decode(token.split('.')[1]!).cnf).toEqual({ jkt: key.thumbprint });
    expect(decode(proof.split('.')[0]!)).toEqual({
      typ: 'dpop+jwt',
      alg: 'ES256',
      jwk: { ...key.publicJwk },
    });
    expect(Object.keys(decode(proof.split('.')[1]!)).sort()).toEqual(['ath', 'htm', 'htu', 'iat', 'jti']);
    expect(checkProof(proof, 'GET', url, token)).toBe('ok');
  });

  it('makes each bad proof fail for the reason it names', async () => {
    const get = { key, method: 'GET', url, accessToken: token };
    const badProofs = {
      wrongTyp: createDpopProof({ ...get, typ: 'JWT' }),
      unsigned: createDpopProof({ ...get, alg: 'none' }),
      privateJwk: createDpopProof({ ...get, header: { jwk: { ...key.publicJwk, d: 'AAAA' } } }),
      wrongMethod: createDpopProof({ ...get, method: 'POST' }),
      wrongUrl: createDpopProof({ ...get, url: 'https://api.gatehouse.test/admin' }),
      stale: createDpopProof({ ...get, iat: Math.floor(Date.now() / 1000) - 3600 }),
      noHtu: createDpopProof({ ...get, claims: { htu: undefined } }),
      noAth: createDpopProof({ ...get, accessToken: undefined }),
      otherKey: createDpopProof({ ...get, key: await generateDpopKey() }),
    };
    const reasons = Object.fromEntries(
      Object.entries(badProofs).map(([name, bad]) => [name, checkProof(bad, 'GET', url, token)]),
    );
    expect(reasons).toEqual({
      wrongTyp: 'typ',
      unsigned: 'alg',
      privateJwk: 'jwk',
      wrongMethod: 'htm',
      wrongUrl: 'htu',
      stale: 'iat',
      noHtu: 'htu',
      noAth: 'ath',
      otherKey: 'binding',
    });

    // @gatehouse/core agrees: the good proof passes, every bad one fails for the same reason.
    const verifier = createVerifier({ ...issuer.verifierOptions(), fetch: issuer.fetch });
    const authenticate = (dpop: string) =>
      verifier.authenticate({ headers: { authorization: `DPoP ${token}`, dpop }, method: 'GET', url });
    expect((await authenticate(proof)).confirmation).toEqual({ jkt: key.thumbprint });
    const coreReasons = Object.fromEntries(
      await Promise.all(
        Object.entries(badProofs).map(async ([name, bad]) => [
          name,
          await authenticate(bad).then(
            () => 'accepted',
            (e: { reason: string }) => e.reason,
          ),
        ]),
      ),
    );
    expect(coreReasons).toEqual({
      wrongTyp: 'dpop_typ',
      unsigned: 'dpop_algorithm',
      privateJwk: 'dpop_key',
      wrongMethod: 'dpop_htm',
      wrongUrl: 'dpop_htu',
      stale: 'dpop_iat',
      noHtu: 'dpop_htu',
      noAth: 'dpop_ath',
      otherKey: 'dpop_binding',
    });
  });
});
