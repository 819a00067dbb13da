/**
 * Compact JWS (RFC 7515) as the test issuer writes it, for access tokens (`tokens.ts`) and DPoP proofs
 * (`dpop.ts`) alike: base64url, the NumericDate clock, and signing over exactly the header and payload
 * given.
 *
 * Signing uses `node:crypto` directly rather than jose's `CompactSign`, so that header fields a verifier
 * must refuse (`crit`, `b64`, `jku`, `jwk`, `x5u`, …) are written verbatim for negative tests.
 *
 * @module
 */
import { constants, type KeyObject, sign } from 'node:crypto';
import type { TestAlgorithm } from './defaults.js';

/**
 * What signs a JWS: a private key and the algorithm to use it with (an issuer key or a DPoP key).
 *
 * @example
 * ```ts
 * const signer: Signer = await generateSigningKey('EdDSA'); // or await generateDpopKey()
 * ```
 */
export interface Signer {
  readonly alg: TestAlgorithm;
  readonly privateKey: KeyObject;
}

/**
 * base64url without padding (RFC 7515 §2), of a string's UTF-8 bytes or of bytes.
 *
 * @example
 * ```ts
 * b64url('{"alg":"none"}'); // 'eyJhbGciOiJub25lIn0'
 * ```
 */
export const b64url = (input: string | Uint8Array): string => Buffer.from(input).toString('base64url');

/**
 * The current time as a NumericDate (whole seconds): the `iat` of tokens and proofs. Reads `Date.now()`,
 * so fake timers apply.
 *
 * @example
 * ```ts
 * const payload = { sub: 'user-1', iat: nowSeconds(), exp: nowSeconds() + 300 };
 * ```
 */
export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

function signatureOf(key: Signer, input: string): Buffer {
  const data = Buffer.from(input, 'latin1');
  switch (key.alg) {
    case 'ES256':
      return sign('sha256', data, { key: key.privateKey, dsaEncoding: 'ieee-p1363' });
    case 'PS256':
      return sign('sha256', data, {
        key: key.privateKey,
        padding: constants.RSA_PKCS1_PSS_PADDING,
        saltLength: constants.RSA_PSS_SALTLEN_DIGEST,
      });
    case 'RS256':
      return sign('sha256', data, key.privateKey);
    case 'EdDSA':
      return sign(null, data, key.privateKey);
  }
}

/**
 * Sign a compact JWS with `key` over exactly this header and payload (JSON-encoded as given).
 *
 * @example
 * ```ts
 * const jws = signCompact(key, { alg: key.alg, kid: key.kid, typ: 'at+jwt' }, { sub: 'user-1', exp: 2e9 });
 * ```
 */
export function signCompact(
  key: Signer,
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
): string {
  const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(payload))}`;
  return `${input}.${b64url(signatureOf(key, input))}`;
}
