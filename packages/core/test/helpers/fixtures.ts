/**
 * Test fixtures for @gatehouse/core: key pairs per algorithm, a raw JWS signer that can craft any
 * header or payload text (duplicate members, odd types), and default RFC 9068 claims.
 */
import { constants, generateKeyPairSync, type KeyObject, randomUUID, sign } from 'node:crypto';

export const ISSUER = 'https://issuer.test/oidc';
export const AUDIENCE = 'https://api.test/orders';

export type TestAlg =
  | 'RS256'
  | 'RS384'
  | 'RS512'
  | 'PS256'
  | 'PS384'
  | 'PS512'
  | 'ES256'
  | 'ES384'
  | 'ES512'
  | 'EdDSA';

/** The algorithms every negative test runs against. */
export const MAIN_ALGS = ['ES256', 'RS256', 'EdDSA', 'PS256'] as const satisfies readonly TestAlg[];

export interface TestKey {
  readonly alg: TestAlg;
  readonly kid: string;
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  /** Public JWK with kid, alg and use. */
  readonly jwk: Record<string, unknown>;
}

const cache = new Map<string, TestKey>();

function generate(alg: TestAlg): { privateKey: KeyObject; publicKey: KeyObject } {
  if (alg.startsWith('RS') || alg.startsWith('PS'))
    return generateKeyPairSync('rsa', { modulusLength: 2048 });
  if (alg === 'ES256') return generateKeyPairSync('ec', { namedCurve: 'P-256' });
  if (alg === 'ES384') return generateKeyPairSync('ec', { namedCurve: 'P-384' });
  if (alg === 'ES512') return generateKeyPairSync('ec', { namedCurve: 'P-521' });
  return generateKeyPairSync('ed25519');
}

/** A key pair for `alg` (memoized per alg + kid, RSA generation is slow). */
export function makeKey(alg: TestAlg, kid = `${alg.toLowerCase()}-1`): TestKey {
  const id = `${alg}/${kid}`;
  const hit = cache.get(id);
  if (hit) return hit;
  const { privateKey, publicKey } = generate(alg);
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid, alg, use: 'sig' };
  const key = { alg, kid, privateKey, publicKey, jwk };
  cache.set(id, key);
  return key;
}

export const b64url = (input: string | Uint8Array): string => Buffer.from(input).toString('base64url');

/** Sign `signingInput` the way JWS `alg` does (ECDSA as R‖S). */
export function rawSign(alg: TestAlg, privateKey: KeyObject, signingInput: string): Buffer {
  const data = Buffer.from(signingInput);
  if (alg === 'EdDSA') return sign(null, data, privateKey);
  const hash = `sha${alg.slice(2)}`;
  if (alg.startsWith('ES')) return sign(hash, data, { key: privateKey, dsaEncoding: 'ieee-p1363' });
  if (alg.startsWith('PS')) {
    return sign(hash, data, {
      key: privateKey,
      padding: constants.RSA_PKCS1_PSS_PADDING,
      saltLength: Number(alg.slice(2)) / 8,
    });
  }
  return sign(hash, data, privateKey);
}

/** Default, valid RFC 9068 claims (now-relative). */
export function claims(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  return {
    iss: ISSUER,
    sub: 'user-42',
    aud: AUDIENCE,
    client_id: 'spa-1',
    scope: 'read:orders write:orders',
    iat: now,
    exp: now + 600,
    jti: randomUUID(),
    ...overrides,
  };
}

export interface SignOptions {
  /** Header fields merged over `{ alg, kid, typ: 'at+jwt' }`; `undefined` values remove a field. */
  header?: Record<string, unknown>;
  /** Raw header JSON text (overrides `header`). */
  headerText?: string;
  /** Raw payload JSON text (overrides the claims object). */
  payloadText?: string;
}

/** Sign a compact JWS with full control over header and payload text. */
export function signToken(
  key: TestKey,
  payload: Record<string, unknown> = claims(),
  options: SignOptions = {},
): string {
  const header: Record<string, unknown> = { alg: key.alg, kid: key.kid, typ: 'at+jwt', ...options.header };
  for (const k of Object.keys(header)) if (header[k] === undefined) delete header[k];
  const h = b64url(options.headerText ?? JSON.stringify(header));
  const p = b64url(options.payloadText ?? JSON.stringify(payload));
  const input = `${h}.${p}`;
  return `${input}.${b64url(rawSign(key.alg, key.privateKey, input))}`;
}

/** A JWKS document holding the public JWKs of `keys`. */
export function jwksOf(...keys: TestKey[]): { keys: Record<string, unknown>[] } {
  return { keys: keys.map((k) => k.jwk) };
}
