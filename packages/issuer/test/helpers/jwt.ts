/** Mint JWTs in tests with node:crypto (forged, expired, wrong audience …). */
import { createPrivateKey, generateKeyPairSync, type JsonWebKey, sign } from 'node:crypto';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Sign `payload` with an RSA private JWK (RS256). */
export function signRs256(
  jwk: JsonWebKey & { kid?: string },
  payload: Record<string, unknown>,
  header: Record<string, unknown> = {},
): string {
  const input = `${b64({ alg: 'RS256', typ: 'at+jwt', kid: jwk.kid, ...header })}.${b64(payload)}`;
  const signature = sign('RSA-SHA256', Buffer.from(input), createPrivateKey({ key: jwk, format: 'jwk' }));
  return `${input}.${signature.toString('base64url')}`;
}

/** A fresh RSA key nobody trusts. */
export function strangerKey(): JsonWebKey & { kid: string } {
  return {
    ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }),
    kid: 'stranger',
  };
}

/** Decode a JWT payload without verifying (inspection only). */
export function payloadOf(token: string): Record<string, any> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
}
