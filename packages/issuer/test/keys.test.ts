/** Signing keys: generation per algorithm, thumbprint kids, key sets with retired keys and their expiry. */
import { createPublicKey } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateSigningKey, loadKeySet, rotateSigningKey, thumbprint, toPublicJwk } from '../src/keys.js';
import type { Store } from '../src/storage/store.js';
import { DRIVERS, openTestStore } from './helpers/drivers.js';

const config = (gracePeriod = 100) => ({
  keys: { algorithm: 'ES256' as const, rsaModulusLength: 2048, gracePeriod, reloadInterval: 0 },
});

describe('signing key generation', () => {
  it.each(['RS256', 'PS256', 'ES256', 'EdDSA'] as const)(
    '%s keys are private JWKs with a thumbprint kid',
    (alg) => {
      const key = generateSigningKey(alg, 2048, 1);
      expect(key.privateJwk).toMatchObject({ alg, use: 'sig', kid: key.kid });
      expect(key.privateJwk.d).toBeDefined();
      const pub = toPublicJwk(key.privateJwk);
      expect(pub.d).toBeUndefined();
      expect(thumbprint(pub)).toBe(key.kid);
      expect(() => createPublicKey({ key: pub, format: 'jwk' })).not.toThrow();
    },
  );
});

describe.each(DRIVERS)('signing keys (%s)', (driver) => {
  let store: Store;
  beforeEach(async () => {
    store = await openTestStore(driver);
  });
  afterEach(() => store.close());

  it('creates the first key on load and keeps it', async () => {
    const first = await loadKeySet(store, config(), 10);
    expect(first.signing).toHaveLength(1);
    expect(first.jwks.keys[0]).not.toHaveProperty('d');
    const again = await loadKeySet(store, config(), 11);
    expect(again.fingerprint).toBe(first.fingerprint);
  });

  it('rotation puts the new key first and publishes the old one until the grace period ends', async () => {
    const first = await loadKeySet(store, config(), 10);
    const key = await rotateSigningKey(store, config(100), 20);
    const during = await loadKeySet(store, config(100), 50);
    expect(during.signing.map((k) => k.kid)).toEqual([key.kid, first.signing[0]!.kid]);
    expect(during.nextExpiry).toBe(120);
    expect(during.fingerprint).not.toBe(first.fingerprint);
    const after = await loadKeySet(store, config(100), 120);
    expect(after.signing.map((k) => k.kid)).toEqual([key.kid]);
    expect(after.nextExpiry).toBeUndefined();
    expect(await store.keys.list()).toHaveLength(1);
  });
});
