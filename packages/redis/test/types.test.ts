/**
 * Type-level contract (checked by tsc in ./dev check, and by vitest's expectTypeOf): the store is a
 * core ReplayStore, and every node-redis v5/v6 client kind fits the `client` option while a
 * legacy-mode client and a URL do not.
 */
import type { ReplayStore } from '@gatehouse/core';
import { createClient, type createClientPool, type createCluster, type createSentinel } from 'redis';
import type { createClient as createClientV5, createCluster as createClusterV5 } from 'redis5';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { createRedisReplayStore, type RedisReplayStore, type RedisSetClient } from '../src/index.js';

describe('types', () => {
  it('the store satisfies core’s ReplayStore', () => {
    expectTypeOf<RedisReplayStore>().toExtend<ReplayStore>();
    expectTypeOf(createRedisReplayStore).returns.toExtend<ReplayStore>();
    expectTypeOf<RedisReplayStore['record']>().returns.toEqualTypeOf<Promise<boolean>>();
    const store: ReplayStore = createRedisReplayStore({ client: createClient() });
    expectTypeOf(store.record).parameters.toEqualTypeOf<[id: string, expiresAt: number]>();
  });

  it('every node-redis v6 and v5 client kind is a RedisSetClient', () => {
    expectTypeOf<ReturnType<typeof createClient>>().toExtend<RedisSetClient>();
    expectTypeOf<ReturnType<typeof createCluster>>().toExtend<RedisSetClient>();
    expectTypeOf<ReturnType<typeof createSentinel>>().toExtend<RedisSetClient>();
    expectTypeOf<ReturnType<typeof createClientPool>>().toExtend<RedisSetClient>();
    expectTypeOf<ReturnType<typeof createClientV5>>().toExtend<RedisSetClient>();
    expectTypeOf<ReturnType<typeof createClusterV5>>().toExtend<RedisSetClient>();
  });

  it('a legacy-mode client, a URL and unknown options are refused', () => {
    expectTypeOf<ReturnType<ReturnType<typeof createClient>['legacy']>>().not.toExtend<RedisSetClient>();
    expectTypeOf<string>().not.toExtend<RedisSetClient>();
    expect(() =>
      // @ts-expect-error: the store opens no connection of its own, so `url` is not an option
      createRedisReplayStore({ client: createClient(), url: 'redis://127.0.0.1:6379' }),
    ).toThrow(TypeError);
  });
});
