/**
 * DPoP proofs for core's tests, signed with node:crypto so any header or claim can be crafted (missing
 * members, wrong types, private key members). Thumbprints are computed with jose, independently of the
 * code under test.
 */
import { createHash, randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { b64url, rawSign, type TestKey } from './fixtures.js';

export interface ProofOptions {
  readonly key: TestKey;
  readonly method?: string;
  readonly url?: string;
  /** The access token (for `ath`); omit for no `ath`. */
  readonly token?: string;
  readonly nonce?: string;
  readonly iat?: unknown;
  readonly jti?: unknown;
  /** Merged over `{ typ, alg, jwk }`; `undefined` removes a member. */
  readonly header?: Record<string, unknown>;
  /** Merged over the claims; `undefined` removes a claim. */
  readonly claims?: Record<string, unknown>;
  /** Signs with this key instead of `key` (the header `jwk` still names `key`). */
  readonly signer?: TestKey;
  readonly payloadText?: string;
}

/** The public members of a test key's JWK (no `kid`, `alg`, `use`). */
export function publicJwk(key: TestKey): Record<string, unknown> {
  const { kid: _kid, alg: _alg, use: _use, ...rest } = key.jwk;
  return rest;
}

/** RFC 7638 thumbprint of a test key, computed by jose. */
export const thumbprintOf = (key: TestKey): Promise<string> => calculateJwkThumbprint(publicJwk(key) as JWK);

/** RFC 9449 `ath` of an access token. */
export const athOf = (token: string): string => createHash('sha256').update(token).digest('base64url');

const drop = (record: Record<string, unknown>) => {
  for (const k of Object.keys(record)) if (record[k] === undefined) delete record[k];
  return record;
};

/** A DPoP proof; by default valid for `GET https://api.test/orders` now. */
export function makeProof(options: ProofOptions): string {
  const key = options.key;
  const header = drop({ typ: 'dpop+jwt', alg: key.alg, jwk: publicJwk(key), ...options.header });
  const claims = drop({
    jti: options.jti ?? randomUUID(),
    htm: options.method ?? 'GET',
    htu: options.url ?? 'https://api.test/orders',
    iat: options.iat ?? Math.floor(Date.now() / 1000),
    ...(options.token === undefined ? {} : { ath: athOf(options.token) }),
    ...(options.nonce === undefined ? {} : { nonce: options.nonce }),
    ...options.claims,
  });
  const signer = options.signer ?? key;
  const input = `${b64url(JSON.stringify(header))}.${b64url(options.payloadText ?? JSON.stringify(claims))}`;
  return `${input}.${b64url(rawSign(signer.alg, signer.privateKey, input))}`;
}
