/** The low-priority hashing threads derive the same keys as libuv's scrypt, and stop on close. */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashPassword, libuvScrypt, verifyPassword } from '../../src/internal/secrets.js';
import { createHashWorkers } from '../../src/protection/hash-workers.js';

describe('createHashWorkers()', () => {
  it('derives what libuv scrypt derives, on up to `count` threads, and verifies stored hashes', async () => {
    const workers = createHashWorkers(2);
    try {
      const salt = randomBytes(16);
      const keys = await Promise.all([1, 2, 3].map(() => workers.derive('pässword', salt, 1024)));
      const expected = await libuvScrypt('pässword', salt, 1024);
      for (const key of keys) expect(key.equals(expected)).toBe(true);
      const stored = await hashPassword('correct horse', 1024);
      expect(await verifyPassword('correct horse', stored, workers.derive)).toBe(true);
      expect(await verifyPassword('wrong horse', stored, workers.derive)).toBe(false);
    } finally {
      await workers.close();
    }
    await expect(workers.derive('x', Buffer.alloc(16), 1024)).rejects.toThrow('closed');
  });
});
