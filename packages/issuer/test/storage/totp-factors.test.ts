/**
 * TOTP factors in the store, on every driver (SQLite and PostgreSQL): an enrolment never replaces a
 * confirmed factor, a time step is accepted once (B87) — also when requests race — and deleting the
 * user deletes the factor.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/storage/store.js';
import { DRIVERS, openTestStore } from '../helpers/drivers.js';

describe.each(DRIVERS)('%s totp factors', (driver) => {
  let store: Store;
  beforeEach(async () => {
    store = await openTestStore(driver);
    await store.users.create({ id: 'usr_a', username: 'alice' }, 1);
  });
  afterEach(() => store.close());

  it('begins unconfirmed, replaces an unconfirmed secret, never a confirmed one', async () => {
    expect(await store.totpFactors.get('usr_a')).toBeUndefined();
    expect(await store.totpFactors.begin('usr_a', 'v1.first', 10)).toEqual({
      userId: 'usr_a',
      secret: 'v1.first',
      confirmed: false,
      lastStep: 0,
    });
    expect((await store.totpFactors.begin('usr_a', 'v1.second', 11)).secret).toBe('v1.second');
    expect(await store.totpFactors.accept('usr_a', 100, 12)).toBe(true);
    const confirmed = await store.totpFactors.begin('usr_a', 'v1.third', 13);
    expect(confirmed).toEqual({ userId: 'usr_a', secret: 'v1.second', confirmed: true, lastStep: 100 });
  });

  it('B87: accepts each later step once, and no earlier one', async () => {
    await store.totpFactors.begin('usr_a', 'v1.s', 10);
    expect(await store.totpFactors.accept('usr_a', 100, 11)).toBe(true);
    expect(await store.totpFactors.accept('usr_a', 100, 12)).toBe(false);
    expect(await store.totpFactors.accept('usr_a', 99, 12)).toBe(false);
    expect(await store.totpFactors.accept('usr_a', 101, 13)).toBe(true);
    expect(await store.totpFactors.accept('usr_unknown', 200, 13)).toBe(false);
  });

  it('B87: of 10 concurrent acceptances of one step, exactly one wins', async () => {
    await store.totpFactors.begin('usr_a', 'v1.s', 10);
    const results = await Promise.all(
      Array.from({ length: 10 }, () => store.totpFactors.accept('usr_a', 500, 11)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('goes with its user', async () => {
    await store.totpFactors.begin('usr_a', 'v1.s', 10);
    await store.users.delete('usr_a');
    expect(await store.totpFactors.get('usr_a')).toBeUndefined();
  });
});
