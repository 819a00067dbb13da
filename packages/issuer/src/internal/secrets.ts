/**
 * Client secrets and user passwords.
 *
 * Client secrets, subject tokens and personal access tokens are 256-bit random values shown once;
 * only their SHA-256 digest is stored, and a presented value is compared by digest with
 * `timingSafeEqual` (fixed 32-byte inputs). Passwords are
 * hashed with scrypt and a per-password salt.
 *
 * @module
 */
import { hash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/** A new client secret: 32 random bytes, base64url (43 characters). */
export function generateSecret(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * A new bearer credential (subject token, personal access token): `prefix` + 32 random bytes in
 * base64url, so 256 bits of randomness. Store only {@link hashSecret} of it.
 */
export function generateToken(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

/** SHA-256 digest of a client secret, hex (64 characters). */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/** Compare a presented secret with a stored digest in constant time. */
export function verifySecret(presented: string, storedDigest: string): boolean {
  const actual = hash('sha256', presented, 'buffer');
  const expected = Buffer.alloc(32);
  // A malformed stored digest decodes short and never matches; the comparison still runs over 32 bytes.
  const decoded = /^[0-9a-f]{64}$/.test(storedDigest) ? Buffer.from(storedDigest, 'hex') : Buffer.alloc(0);
  decoded.copy(expected);
  return timingSafeEqual(actual, expected) && decoded.length === 32;
}

const KEY_LENGTH = 32;

/**
 * scrypt of an NFC-normalized password: `KEY_LENGTH` bytes with N = `cost`, r = 8, p = 1. The default
 * runs on libuv's pool; the sign-in page passes a low-priority worker thread instead (see
 * `protection/hash-workers.ts`).
 *
 * @example
 * ```ts
 * const key = await libuvScrypt('correct horse', salt, 16_384);
 * ```
 */
export type KeyDerivation = (password: string, salt: Buffer, cost: number) => Promise<Buffer>;

/** Parameters of every password hash, for {@link KeyDerivation}s: `N` = cost, `r` = 8, `p` = 1. */
export const scryptOptions = (cost: number) => ({ N: cost, r: 8, p: 1, maxmem: 256 * cost * 8 });

/** {@link KeyDerivation} on libuv's thread pool. */
export const libuvScrypt: KeyDerivation = (password, salt, cost) =>
  new Promise((resolve, reject) => {
    scrypt(password, salt, KEY_LENGTH, scryptOptions(cost), (err, key) => (err ? reject(err) : resolve(key)));
  });

/** Hash a password: `scrypt$<N>$<salt b64url>$<hash b64url>`. */
export async function hashPassword(password: string, cost: number): Promise<string> {
  const salt = randomBytes(16);
  const key = await libuvScrypt(password.normalize('NFC'), salt, cost);
  return `scrypt$${cost}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** Verify a password against {@link hashPassword} output, in constant time. Unknown formats never match. */
export async function verifyPassword(
  password: string,
  stored: string,
  derive: KeyDerivation = libuvScrypt,
): Promise<boolean> {
  const [scheme, costText, saltText, keyText] = stored.split('$');
  const cost = Number(costText);
  if (
    scheme !== 'scrypt' ||
    !Number.isInteger(cost) ||
    cost < 2 ||
    saltText === undefined ||
    keyText === undefined
  )
    return false;
  const expected = Buffer.from(keyText, 'base64url');
  if (expected.length !== KEY_LENGTH) return false;
  const actual = await derive(password.normalize('NFC'), Buffer.from(saltText, 'base64url'), cost);
  return timingSafeEqual(actual, expected);
}

/**
 * Burn the same time as a real verification, for sign-ins with an unknown username, so response time
 * does not reveal which accounts exist.
 */
export async function dummyPasswordCheck(
  password: string,
  cost: number,
  derive: KeyDerivation = libuvScrypt,
): Promise<false> {
  await derive(password.normalize('NFC'), Buffer.alloc(16), cost);
  return false;
}
