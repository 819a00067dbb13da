/** The oidc-provider adapter on the store: consumed flag, clients from applications, lost consume races (B28). */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAdapter } from '../../src/storage/adapter.js';
import type { Store } from '../../src/storage/store.js';
import { DRIVERS, openTestStore } from '../helpers/drivers.js';

describe.each(DRIVERS)('adapter (%s)', (driver) => {
  let store: Store;
  beforeEach(async () => {
    store = await openTestStore(driver);
  });
  afterEach(() => store.close());

  it('stores payloads with expiry and reports consumption', async () => {
    const Adapter = createAdapter(store, async () => undefined);
    const codes = new Adapter('AuthorizationCode');
    await codes.upsert('c1', { jti: 'c1', grantId: 'g1', kind: 'AuthorizationCode' } as never, 60);
    expect(await codes.find('c1')).toMatchObject({ jti: 'c1', grantId: 'g1' });
    await codes.consume('c1');
    expect((await codes.find('c1'))?.consumed).toEqual(expect.any(Number));
    await codes.destroy('c1');
    expect(await codes.find('c1')).toBeUndefined();
  });

  it('a second consume fails with invalid_grant and revokes the grant', async () => {
    const Adapter = createAdapter(store, async () => undefined);
    const codes = new Adapter('AuthorizationCode');
    const refresh = new Adapter('RefreshToken');
    const grants = new Adapter('Grant');
    await grants.upsert('g1', { jti: 'g1' } as never, 60);
    await codes.upsert('c1', { jti: 'c1', grantId: 'g1' } as never, 60);
    await refresh.upsert('r1', { jti: 'r1', grantId: 'g1' } as never, 60);
    const outcomes = await Promise.allSettled([
      codes.consume('c1'),
      codes.consume('c1'),
      codes.consume('c1'),
    ]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const rejected = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    expect(rejected.reason).toMatchObject({ error: 'invalid_grant', status: 400 });
    expect(await refresh.find('r1')).toBeUndefined();
    expect(await grants.find('g1')).toBeUndefined();
  });

  it('answers the Client model from the lookup, and finds by uid', async () => {
    const Adapter = createAdapter(store, async (id) =>
      id === 'app_1' ? ({ client_id: 'app_1' } as never) : undefined,
    );
    const clients = new Adapter('Client');
    expect(await clients.find('app_1')).toEqual({ client_id: 'app_1' });
    expect(await clients.find('app_2')).toBeUndefined();
    const interactions = new Adapter('Interaction');
    await interactions.upsert('i1', { uid: 'u1' } as never, 60);
    expect(await interactions.findByUid('u1')).toEqual({ uid: 'u1' });
    await interactions.revokeByGrantId('none');
    expect(await interactions.findByUserCode('x')).toBeUndefined();
  });
});
