/**
 * Options are checked when the store is created: a TypeError naming the bad or unknown option, the
 * defaults from DEFAULTS otherwise. Creating a store sends nothing and opens nothing.
 */
import { createClient } from 'redis';
import { describe, expect, it } from 'vitest';
import {
  createRedisReplayStore,
  DEFAULTS,
  type RedisReplayStoreOptions,
  resolveOptions,
} from '../src/index.js';

// A real node-redis client, never connected: validation must not need (or open) a connection.
const client = createClient({ url: 'redis://127.0.0.1:1' });
const create = (options: unknown) => () => createRedisReplayStore(options as RedisReplayStoreOptions);

describe('createRedisReplayStore() options', () => {
  it('uses DEFAULTS and leaves the client alone', () => {
    const store = createRedisReplayStore({ client });
    expect(store.keyPrefix).toBe('gatehouse:dpop:');
    expect(store.keyPrefix).toBe(DEFAULTS.keyPrefix);
    expect(store.timeout).toBe(DEFAULTS.timeout);
    expect(DEFAULTS.timeout).toBe(1_000);
    expect(client.isOpen).toBe(false);
    expect(Object.isFrozen(store)).toBe(true);
  });

  it('takes keyPrefix and timeout', () => {
    const store = createRedisReplayStore({ client, keyPrefix: 'orders:', timeout: 60_000 });
    expect(store).toMatchObject({ keyPrefix: 'orders:', timeout: 60_000 });
    expect(createRedisReplayStore({ client, timeout: 1 }).timeout).toBe(1);
  });

  it('DEFAULTS is frozen', () => {
    expect(Object.isFrozen(DEFAULTS)).toBe(true);
    expect(() => {
      (DEFAULTS as { timeout: number }).timeout = 5;
    }).toThrow(TypeError);
  });

  it.each([undefined, null, 'redis://localhost', 42])('refuses options %j', (options) => {
    expect(create(options)).toThrow(new TypeError('options must be an object'));
  });

  it.each([
    ['missing', {}],
    ['null', { client: null }],
    ['a URL string', { client: 'redis://localhost:6379' }],
    ['an object without set()', { client: { get: () => null } }],
    ['set that is not a function', { client: { set: 'SET' } }],
  ])('refuses a client that is %s, naming "client"', (_, options) => {
    expect(create(options)).toThrow(TypeError);
    expect(create(options)).toThrow(/^"client" option must be a node-redis client with a set\(\) method/);
  });

  it.each([[''], [42], [null], [['gatehouse:']]])('refuses keyPrefix %j, naming it', (keyPrefix) => {
    expect(create({ client, keyPrefix })).toThrow(
      new TypeError('"keyPrefix" option must be a non-empty string'),
    );
  });

  it.each([[0], [-1], [1.5], [60_001], [Number.NaN], [Number.POSITIVE_INFINITY], ['250'], [null]])(
    'refuses timeout %j, naming it',
    (timeout) => {
      expect(create({ client, timeout })).toThrow(
        new TypeError('"timeout" option must be an integer from 1 to 60000 (milliseconds)'),
      );
    },
  );

  it('refuses an unknown option, naming the key', () => {
    expect(create({ client, prefix: 'x:' })).toThrow(
      new TypeError('unknown option "prefix" (createRedisReplayStore takes client, keyPrefix, timeout)'),
    );
    expect(create({ client, ttl: 1000 })).toThrow(/^unknown option "ttl"/);
  });

  it('refuses url, saying to pass a connected client instead', () => {
    expect(create({ url: 'redis://localhost:6379' })).toThrow(TypeError);
    expect(create({ url: 'redis://localhost:6379' })).toThrow(
      /^unknown option "url" .*pass a connected client, e\.g\. client: await createClient\(\{ url \}\)\.connect\(\)/,
    );
  });

  it('resolveOptions() returns the frozen, resolved options', () => {
    const resolved = resolveOptions({ client, timeout: 300 });
    expect(resolved).toEqual({ client, keyPrefix: DEFAULTS.keyPrefix, timeout: 300 });
    expect(Object.isFrozen(resolved)).toBe(true);
  });
});
