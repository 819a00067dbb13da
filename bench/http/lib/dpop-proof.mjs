/** One ES256 DPoP proof for `GET url` with `token`, from the client's private JWK (for pre-flight checks). */
import { createHash, createPrivateKey, randomUUID, sign } from 'node:crypto';

const b64 = (x) => Buffer.from(x).toString('base64url');

export function dpopProof(jwk, url, token) {
  const { d: _d, ...publicJwk } = jwk;
  const header = b64(JSON.stringify({ typ: 'dpop+jwt', alg: 'ES256', jwk: publicJwk }));
  const ath = createHash('sha256').update(token).digest('base64url');
  const claims = { jti: randomUUID(), htm: 'GET', htu: url, iat: Math.floor(Date.now() / 1000), ath };
  const input = `${header}.${b64(JSON.stringify(claims))}`;
  const key = createPrivateKey({ key: jwk, format: 'jwk' });
  return `${input}.${b64(sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }))}`;
}
