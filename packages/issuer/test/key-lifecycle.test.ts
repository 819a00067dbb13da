/**
 * The keys in force (key-lifecycle.ts): reads of the key set run one at a time, so a read begun before
 * a rotation committed can never finish last and put the old set back (found under load: an instance
 * signed with its old key right after its own rotation answered 201).
 */
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { epoch } from '../src/internal/ids.js';
import type { ResolvedConfig } from '../src/issuer-config.js';
import { createKeyLifecycle } from '../src/key-lifecycle.js';
import { type KeySet, loadKeySet } from '../src/keys.js';
import type { Store } from '../src/storage/store.js';
import { DRIVERS, openTestStore } from './helpers/drivers.js';

const config = {
  keys: { algorithm: 'ES256', rsaModulusLength: 2048, gracePeriod: 100, reloadInterval: 0 },
} as unknown as ResolvedConfig;

/**
 * `store`, whose next key listing can be held back: it reads at once, then waits until `release()`
 * before answering — a read that began before what follows and finishes after it.
 */
function withHeldListing(store: Store) {
  let hold: Promise<void> | undefined;
  let release = () => {};
  let listings = 0;
  let rotated = () => {};
  const keys = Object.create(store.keys) as Store['keys'];
  keys.list = async () => {
    listings++;
    const held = hold; // only the listing begun while held waits
    hold = undefined;
    const read = await store.keys.list();
    if (held !== undefined) await held;
    return read;
  };
  keys.rotate = async (...args) => {
    await store.keys.rotate(...args);
    rotated();
  };
  return {
    store: { ...store, keys } as Store,
    hold: () => {
      hold = new Promise((resolve) => {
        release = () => resolve();
      });
    },
    release: () => release(),
    onRotated: (fn: () => void) => {
      rotated = fn;
    },
    listings: () => listings,
  };
}

describe.each(DRIVERS)('key lifecycle (%s)', (driver) => {
  let store: Store;
  beforeEach(async () => {
    store = await openTestStore(driver);
  });
  afterEach(() => store.close());

  it('a read begun before a rotation, finishing after it, never puts the old key set back', async () => {
    const held = withHeldListing(store);
    const initial = await loadKeySet(held.store, config, epoch());
    const changes: KeySet[] = [];
    let onChangeHook = () => {};
    const keys = createKeyLifecycle({
      config,
      store: held.store,
      log: pino({ level: 'silent' }),
      initial,
      onChange: (set) => {
        changes.push(set);
        onChangeHook();
      },
    });
    try {
      // A reload (as a NOTIFY or the poll would start) reads the old set and is held before it applies;
      // it is let go once the rotation's own read applied the new set (or, when reads wait for one
      // another, as they must, shortly after the rotation committed).
      const listed = held.listings();
      held.hold();
      const stale = keys.refresh();
      await expect.poll(() => held.listings()).toBe(listed + 1);
      onChangeHook = () => held.release();
      held.onRotated(() => setTimeout(() => held.release(), 300));
      const rotated = await keys.rotate();
      await stale;
      expect(keys.current().signing[0]!.kid).toBe(rotated.kid);
      expect(changes.at(-1)!.signing[0]!.kid).toBe(rotated.kid);
      // And a plain reload afterwards changes nothing.
      await expect(keys.reload()).resolves.toBe(false);
      expect(keys.current().signing[0]!.kid).toBe(rotated.kid);
    } finally {
      keys.close();
    }
  });
});
