/**
 * createRedisReplayStore() against a real redis-server (test/helpers/redis-server.ts), with node-redis
 * v6 and v5: fresh and replayed ids, the key it writes, one command per call, concurrency across two
 * connections (two API instances), expiry, proofs already past `expiresAt`, prefixes, and replies
 * mapped to Buffers.
 */
import { randomBytes } from 'node:crypto';
import { RESP_TYPES } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisReplayStore, DEFAULTS } from '../src/index.js';
import { CLIENTS, commandCalls, sleep, type TestClient } from './helpers/clients.js';
import { type RedisServer, startRedisServer } from './helpers/redis-server.js';

/** A DPoP-like proof id: base64url, unique per call. */
const newId = () => randomBytes(24).toString('base64url');
const inFiveMinutes = () => Date.now() + 300_000;

let server: RedisServer;
beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(async () => {
  await server?.dispose();
});

describe.each(CLIENTS)('with $name', (flavour) => {
  let a: TestClient;
  let b: TestClient;
  let admin: TestClient;
  beforeAll(async () => {
    [a, b, admin] = await Promise.all([
      flavour.connect(server.url),
      flavour.connect(server.url),
      flavour.connect(server.url),
    ]);
  });
  afterAll(() => {
    for (const client of [a, b, admin]) if (client?.isOpen) client.destroy();
  });

  it('records a fresh id (true) and refuses it afterwards (false)', async () => {
    const store = createRedisReplayStore({ client: a });
    const id = newId();
    await expect(store.record(id, inFiveMinutes())).resolves.toBe(true);
    await expect(store.record(id, inFiveMinutes())).resolves.toBe(false);
    await expect(store.record(id, inFiveMinutes())).resolves.toBe(false);
    await expect(store.record(newId(), inFiveMinutes())).resolves.toBe(true);
  });

  it('writes <keyPrefix><id> = "1" with a ttl of expiresAt - now', async () => {
    const store = createRedisReplayStore({ client: a });
    const id = newId();
    await store.record(id, Date.now() + 120_000);
    expect(await admin.get(`${DEFAULTS.keyPrefix}${id}`)).toBe('1');
    const ttl = Number(await admin.pTTL(`gatehouse:dpop:${id}`));
    expect(ttl).toBeGreaterThan(115_000);
    expect(ttl).toBeLessThanOrEqual(120_000);
  });

  it('sends exactly one command, SET, per record()', async () => {
    const store = createRedisReplayStore({ client: a });
    const ids = [newId(), newId(), newId()];
    await admin.sendCommand(['CONFIG', 'RESETSTAT']);
    for (const id of [...ids, ids[0]!, ids[1]!]) await store.record(id, inFiveMinutes());
    const calls = await commandCalls(admin);
    // The admin connection's own CONFIG and INFO are the only other commands the server saw.
    const { info = 0, config = 0, 'config|resetstat': _reset = 0, ...others } = calls;
    expect(others).toEqual({ set: 5 });
  });

  it('of 20 concurrent calls with one id over two connections, exactly one is true', async () => {
    // Two stores on two connections, as two API instances would have; 25 ids raced at once.
    const instances = [createRedisReplayStore({ client: a }), createRedisReplayStore({ client: b })];
    const ids = Array.from({ length: 25 }, newId);
    const expiresAt = inFiveMinutes();
    const results = await Promise.all(
      ids.map((id) =>
        Promise.all(Array.from({ length: 20 }, (_, i) => instances[i % 2]!.record(id, expiresAt))),
      ),
    );
    for (const perId of results) {
      expect(perId).toHaveLength(20);
      expect(perId.filter((fresh) => fresh)).toHaveLength(1);
    }
  });

  it('forgets an id once expiresAt has passed', async () => {
    const store = createRedisReplayStore({ client: a });
    const id = newId();
    const expiresAt = Date.now() + 300;
    await expect(store.record(id, expiresAt)).resolves.toBe(true);
    await expect(store.record(id, expiresAt)).resolves.toBe(false);
    await sleep(expiresAt - Date.now() + 30);
    expect(await admin.get(`${store.keyPrefix}${id}`)).toBeNull();
    await expect(store.record(id, inFiveMinutes())).resolves.toBe(true);
    await expect(store.record(id, inFiveMinutes())).resolves.toBe(false);
  });

  it('asks Redis even when expiresAt has passed: true for an unseen id, false for a held one', async () => {
    const store = createRedisReplayStore({ client: a });
    const unseen = newId();
    await expect(store.record(unseen, Date.now() - 10_000)).resolves.toBe(true);
    // Written with the 1 ms floor: gone almost at once, never left behind.
    await sleep(5);
    expect(await admin.get(`${store.keyPrefix}${unseen}`)).toBeNull();

    const held = newId();
    await store.record(held, inFiveMinutes());
    await expect(store.record(held, Date.now() - 10_000)).resolves.toBe(false);
    // The existing record keeps its own ttl.
    expect(Number(await admin.pTTL(`${store.keyPrefix}${held}`))).toBeGreaterThan(290_000);
  });

  it('keeps stores with different prefixes apart on one Redis', async () => {
    const orders = createRedisReplayStore({ client: a, keyPrefix: 'orders-api:dpop:' });
    const billing = createRedisReplayStore({ client: b, keyPrefix: 'billing-api:dpop:' });
    const shared = createRedisReplayStore({ client: a });
    const id = newId();
    await expect(orders.record(id, inFiveMinutes())).resolves.toBe(true);
    await expect(billing.record(id, inFiveMinutes())).resolves.toBe(true);
    await expect(shared.record(id, inFiveMinutes())).resolves.toBe(true);
    await expect(orders.record(id, inFiveMinutes())).resolves.toBe(false);
    await expect(billing.record(id, inFiveMinutes())).resolves.toBe(false);
    // Same prefix, other connection: the same record.
    await expect(
      createRedisReplayStore({ client: b, keyPrefix: 'orders-api:dpop:' }).record(id, inFiveMinutes()),
    ).resolves.toBe(false);
    for (const key of [`orders-api:dpop:${id}`, `billing-api:dpop:${id}`, `gatehouse:dpop:${id}`]) {
      expect(await admin.get(key)).toBe('1');
    }
  });

  it('rejects an empty id or a non-finite expiresAt with a TypeError, sending nothing', async () => {
    const store = createRedisReplayStore({ client: a });
    await admin.sendCommand(['CONFIG', 'RESETSTAT']);
    await expect(store.record('', inFiveMinutes())).rejects.toThrow(TypeError);
    await expect(store.record(newId(), Number.NaN)).rejects.toThrow(/expiresAt must be a finite number/);
    await expect(store.record(newId(), Number.POSITIVE_INFINITY)).rejects.toThrow(TypeError);
    // @ts-expect-error: a number is not an id
    await expect(store.record(42, inFiveMinutes())).rejects.toThrow(/id must be a non-empty string/);
    expect((await commandCalls(admin)).set).toBeUndefined();
  });
});

describe('with simple-string replies mapped to Buffers (node-redis type mapping)', () => {
  it('still reads OK as true and nil as false', async () => {
    const client = await CLIENTS[0]!.connect(server.url);
    try {
      const buffers = (client as unknown as { withTypeMapping(m: object): TestClient }).withTypeMapping({
        [RESP_TYPES.SIMPLE_STRING]: Buffer,
        [RESP_TYPES.BLOB_STRING]: Buffer,
      });
      const raw = await buffers.set(`probe:${newId()}`, '1', {
        expiration: { type: 'PX', value: 1000 },
        condition: 'NX',
      });
      expect(Buffer.isBuffer(raw)).toBe(true);
      const store = createRedisReplayStore({ client: buffers });
      const id = newId();
      await expect(store.record(id, inFiveMinutes())).resolves.toBe(true);
      await expect(store.record(id, inFiveMinutes())).resolves.toBe(false);
    } finally {
      if (client.isOpen) client.destroy();
    }
  });
});
