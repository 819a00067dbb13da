/**
 * Webhook secrets at rest (B96): sealed with AES-256-GCM under the database's webhook key, bound to
 * their endpoint; every instance on the database opens them, a sealed value moved to another endpoint,
 * altered, or opened with another database's key does not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/config/defaults.js';
import { openStore } from '../../src/storage/open.js';
import type { Store } from '../../src/storage/store.js';
import { createSecretBox } from '../../src/webhooks/secret-box.js';
import { DRIVERS, freshDatabase, openTestStore } from '../helpers/drivers.js';

describe.each(DRIVERS)('%s', (driver) => {
  let store: Store;
  let database: string;
  beforeAll(async () => {
    database = await freshDatabase(driver);
    store = openStore(database);
    await store.migrate();
  });
  afterAll(() => store.close());

  it('seals a secret that opens for its endpoint only, and never holds it in clear', async () => {
    const box = createSecretBox(store);
    const sealed = await box.seal('whsec_clear-value', 'whk_a');
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain('clear-value');
    expect(await box.seal('whsec_clear-value', 'whk_a')).not.toBe(sealed); // a fresh IV each time
    expect(await box.open(sealed, 'whk_a')).toBe('whsec_clear-value');
    await expect(box.open(sealed, 'whk_b')).rejects.toThrow();
    const [version, iv, data, tag] = sealed.split('.');
    const flipped = Buffer.from(data!, 'base64url');
    flipped[0]! ^= 1;
    await expect(
      box.open([version, iv, flipped.toString('base64url'), tag].join('.'), 'whk_a'),
    ).rejects.toThrow();
    await expect(box.open('whsec_clear-value', 'whk_a')).rejects.toThrow('not a sealed webhook secret');
    expect(await store.settings.get(DEFAULTS.webhooks.secretKeySetting)).toMatch(/^[\w-]{43}$/);
  });

  it('another store on the same database opens it; a store on another database does not', async () => {
    const sealed = await createSecretBox(store).seal('whsec_shared', 'whk_c');
    if (driver === 'postgres') {
      const sibling = openStore(database);
      try {
        expect(await createSecretBox(sibling).open(sealed, 'whk_c')).toBe('whsec_shared');
      } finally {
        await sibling.close();
      }
    }
    const stranger = await openTestStore(driver);
    try {
      await expect(createSecretBox(stranger).open(sealed, 'whk_c')).rejects.toThrow();
    } finally {
      await stranger.close();
    }
  });
});
