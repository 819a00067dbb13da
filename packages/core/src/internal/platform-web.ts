/**
 * The runtime primitives of core for every runtime but Node (Bun, Deno, Cloudflare workerd, browsers):
 * WebCrypto (`crypto.subtle`) for keys and signatures, and no Node built-in or `Buffer` anywhere. Same
 * exports as the Node implementation (platform.ts); the package's `exports` conditions select it.
 *
 * - `crypto.subtle` fixes a key's algorithm at import, while a JWK without `alg` may verify several
 *   (an RSA key: RS256…PS512). A {@link VerifyKey} therefore holds the JWK and imports it once per
 *   algorithm it is actually used with; the first import (at JWKS load) validates the key.
 * - SHA-256 and HMAC stay synchronous (thumbprints, `ath`, nonces sit on the request path and in
 *   synchronous public functions) with `@noble/hashes`, an audited, dependency-free implementation,
 *   rather than WebCrypto's async `digest`.
 * - Base64 is decoded here by table: `atob` works on Latin-1 strings, and `Uint8Array.fromBase64` is
 *   not on every runtime yet. The callers have already checked the alphabet and canonical form.
 *
 * @module
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import type { Algorithm } from '../types.js';
import { EC_CURVE, EC_SIZE, HASH, isEcdsaShape, MIN_RSA_BITS, PSS_SALT } from './algorithms.js';

/**
 * Which build of core this is: `node` (`node:crypto`) or `web` (WebCrypto), as the package's `exports`
 * conditions or an explicit subpath (`@gatehouse/core/node`, `@gatehouse/core/web`) picked it.
 *
 * @example
 * ```ts
 * import { PLATFORM } from '@gatehouse/core';
 * log.info({ gatehouseBuild: PLATFORM }); // 'node' on Node, 'web' on Bun, Deno, workerd
 * ```
 */
export const PLATFORM: 'node' | 'web' = 'web';

/** The public members of a JWK, and nothing else. */
export type PublicJwk = Readonly<Record<string, string>>;

/** A public JWK with its WebCrypto keys, imported per algorithm on first use. */
export interface VerifyKey {
  readonly jwk: PublicJwk;
  /** The JWK's members, canonical: two keys are the same when this is. */
  readonly id: string;
  readonly imported: Map<Algorithm, Promise<CryptoKey | undefined>>;
  /** The keys whose import has settled, so the hot path awaits only `verify`. */
  readonly ready: Map<Algorithm, CryptoKey | undefined>;
}

/** WebCrypto's types, named from the global `crypto` (core's TypeScript config has no DOM library). */
type CryptoKey = InstanceType<typeof globalThis.CryptoKey>;
type Subtle = typeof globalThis.crypto.subtle;
type ImportParams = Parameters<Subtle['importKey']>[2];
type VerifyParams = Parameters<Subtle['verify']>[0];
type WebJwk = Extract<Parameters<Subtle['importKey']>, ['jwk', ...unknown[]]>[1];

const WEB_HASH = { sha256: 'SHA-256', sha384: 'SHA-384', sha512: 'SHA-512' } as const;

/** WebCrypto import parameters of `alg`. */
function importParams(alg: Algorithm): ImportParams {
  const hash = HASH[alg];
  if (alg.startsWith('RS')) return { name: 'RSASSA-PKCS1-v1_5', hash: WEB_HASH[hash!] };
  if (alg.startsWith('PS')) return { name: 'RSA-PSS', hash: WEB_HASH[hash!] };
  const curve = EC_CURVE[alg];
  if (curve !== undefined) return { name: 'ECDSA', namedCurve: curve };
  return { name: 'Ed25519' };
}

/** WebCrypto verify parameters of `alg`. */
function verifyParams(alg: Algorithm): VerifyParams {
  const salt = PSS_SALT[alg];
  if (salt !== undefined) return { name: 'RSA-PSS', saltLength: salt };
  if (EC_SIZE[alg] !== undefined) return { name: 'ECDSA', hash: WEB_HASH[HASH[alg]!] };
  if (alg.startsWith('RS')) return { name: 'RSASSA-PKCS1-v1_5' };
  return { name: 'Ed25519' };
}

async function importFor(jwk: PublicJwk, alg: Algorithm): Promise<CryptoKey | undefined> {
  try {
    const key = await crypto.subtle.importKey('jwk', jwk as WebJwk, importParams(alg), false, ['verify']);
    if (key.type !== 'public') return undefined;
    if (
      jwk.kty === 'RSA' &&
      ((key.algorithm as { modulusLength?: number }).modulusLength ?? 0) < MIN_RSA_BITS
    )
      return undefined;
    return key;
  } catch {
    return undefined;
  }
}

function keyFor(key: VerifyKey, alg: Algorithm): Promise<CryptoKey | undefined> {
  let imported = key.imported.get(alg);
  if (imported === undefined) {
    imported = importFor(key.jwk, alg).then((cryptoKey) => {
      key.ready.set(alg, cryptoKey);
      return cryptoKey;
    });
    key.imported.set(alg, imported);
  }
  return imported;
}

/**
 * Import a public JWK (its public members only) for verification with `alg`, or `undefined` when it
 * is not a valid public key for it, or an RSA key under 2048 bits.
 */
export async function importKey(jwk: PublicJwk, alg: Algorithm): Promise<VerifyKey | undefined> {
  const key: VerifyKey = {
    jwk,
    id: JSON.stringify(
      Object.keys(jwk)
        .sort()
        .map((name) => [name, jwk[name]]),
    ),
    imported: new Map(),
    ready: new Map(),
  };
  return (await keyFor(key, alg)) === undefined ? undefined : key;
}

/** Whether two imported keys are the same public key. */
export function sameKey(a: VerifyKey, b: VerifyKey): boolean {
  return a.id === b.id;
}

function subtleVerify(
  alg: Algorithm,
  cryptoKey: CryptoKey | undefined,
  data: Uint8Array,
  signature: Uint8Array,
): Promise<boolean> {
  if (cryptoKey === undefined) return Promise.resolve(false);
  try {
    return crypto.subtle
      .verify(
        verifyParams(alg),
        cryptoKey,
        signature as Uint8Array<ArrayBuffer>,
        data as Uint8Array<ArrayBuffer>,
      )
      .catch(() => false);
  } catch {
    // An implementation that throws rather than rejects (malformed input) still answers `false`.
    return Promise.resolve(false);
  }
}

/**
 * Verify a JWS signature. Resolves to `false` for any mismatch or malformed signature; never rejects.
 * Once the key is imported for `alg`, one promise per call: WebCrypto's own.
 */
export function verifySignature(
  alg: Algorithm,
  key: VerifyKey,
  data: Uint8Array,
  signature: Uint8Array,
): Promise<boolean> {
  const size = EC_SIZE[alg];
  if (size !== undefined && !isEcdsaShape(signature, size)) return Promise.resolve(false);
  if (key.ready.has(alg)) return subtleVerify(alg, key.ready.get(alg), data, signature);
  return keyFor(key, alg).then((cryptoKey) => subtleVerify(alg, cryptoKey, data, signature));
}

const encoder = new TextEncoder();
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Base64url SHA-256 of a string (UTF-8) or bytes. */
export function sha256Base64url(data: string | Uint8Array): string {
  return encodeBase64url(sha256(typeof data === 'string' ? encoder.encode(data) : data));
}

/** HMAC-SHA-256 of `data` under `key`. */
export function hmacSha256(key: Uint8Array, data: Uint8Array): Uint8Array {
  return hmac(sha256, key, data);
}

const URL_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const STD_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const URL_VALUES = new Int8Array(128).fill(-1);
const STD_VALUES = new Int8Array(128).fill(-1);
for (let i = 0; i < 64; i++) {
  URL_VALUES[URL_ALPHABET.charCodeAt(i)] = i;
  STD_VALUES[STD_ALPHABET.charCodeAt(i)] = i;
}

/** Decode base64 text without padding characters, whose alphabet the caller has checked. */
function decode(text: string, values: Int8Array): Uint8Array {
  const out = new Uint8Array(Math.floor((text.length * 3) / 4));
  let bits = 0;
  let buffer = 0;
  let at = 0;
  for (let i = 0; i < text.length; i++) {
    buffer = (buffer << 6) | values[text.charCodeAt(i)]!;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[at++] = (buffer >> bits) & 0xff;
    }
  }
  return out;
}

/** Bytes of base64url text whose alphabet and canonical form the caller has checked. */
export function base64urlBytes(text: string): Uint8Array {
  return decode(text, URL_VALUES);
}

/** Bytes of padded standard base64 text the caller has checked. */
export function base64Bytes(text: string): Uint8Array {
  const end = text.endsWith('==') ? text.length - 2 : text.endsWith('=') ? text.length - 1 : text.length;
  return decode(text.slice(0, end), STD_VALUES);
}

/** Unpadded base64url of bytes. */
export function encodeBase64url(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out +=
      URL_ALPHABET[n >> 18]! +
      URL_ALPHABET[(n >> 12) & 63]! +
      URL_ALPHABET[(n >> 6) & 63]! +
      URL_ALPHABET[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i]! << 16;
    out += URL_ALPHABET[n >> 18]! + URL_ALPHABET[(n >> 12) & 63]!;
  } else if (rest === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    out += URL_ALPHABET[n >> 18]! + URL_ALPHABET[(n >> 12) & 63]! + URL_ALPHABET[(n >> 6) & 63]!;
  }
  return out;
}

/** The bytes of an ASCII string (a JWS signing input). */
export function asciiBytes(text: string): Uint8Array {
  return encoder.encode(text);
}

/** The text of strictly valid UTF-8 bytes (a byte-order mark is kept), or `undefined`. */
export function utf8Text(bytes: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}
