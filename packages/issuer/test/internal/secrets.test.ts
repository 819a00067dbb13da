/** Client secrets (B49, B50) and passwords. */
import { describe, expect, it } from 'vitest';
import {
  dummyPasswordCheck,
  generateSecret,
  hashPassword,
  hashSecret,
  verifyPassword,
  verifySecret,
} from '../../src/internal/secrets.js';

describe('client secrets', () => {
  it('are 256-bit random values stored as a SHA-256 digest (B49)', () => {
    const secret = generateSecret();
    expect(Buffer.from(secret, 'base64url')).toHaveLength(32);
    expect(generateSecret()).not.toBe(secret);
    const digest = hashSecret(secret);
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(digest).not.toContain(secret);
  });

  it('verify by digest: right secret, wrong secret, the digest itself, malformed digests (B50)', () => {
    const secret = generateSecret();
    const digest = hashSecret(secret);
    expect(verifySecret(secret, digest)).toBe(true);
    expect(verifySecret(`${secret}x`, digest)).toBe(false);
    expect(verifySecret(digest, digest)).toBe(false);
    expect(verifySecret(secret, '')).toBe(false);
    expect(verifySecret(secret, digest.slice(0, 62))).toBe(false);
    expect(verifySecret('', hashSecret(''))).toBe(true);
  });
});

describe('passwords', () => {
  it('hash with scrypt and a salt; verify; reject other formats', async () => {
    const hash = await hashPassword('p4ssword', 1024);
    expect(hash).toMatch(/^scrypt\$1024\$[\w-]{22}\$[\w-]{43}$/);
    expect(await hashPassword('p4ssword', 1024)).not.toBe(hash);
    expect(await verifyPassword('p4ssword', hash)).toBe(true);
    expect(await verifyPassword('p4ssword ', hash)).toBe(false);
    expect(await verifyPassword('p4ssword', 'plain:p4ssword')).toBe(false);
    expect(await verifyPassword('p4ssword', 'scrypt$x$y$z')).toBe(false);
    expect(await dummyPasswordCheck('anything', 1024)).toBe(false);
  });

  it('normalizes Unicode so composed and decomposed forms match', async () => {
    const hash = await hashPassword('caf\u00e9', 1024);
    expect(await verifyPassword('cafe\u0301', hash)).toBe(true);
  });
});
