/**
 * When Redis cannot answer, record() rejects (the verifier answers 503) and never resolves true: a
 * hung Redis (CLIENT PAUSE), a stopped redis-server, an error reply (OOM), a closed or never-connected
 * client; and once redis-server is back the same store works again through the reconnected client.
 * Each client flavour gets its own redis-server, since these tests stop it.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisReplayStore, RedisReplayStoreError } from '../src/index.js';
import { CLIENTS, type TestClient, waitFor } from './helpers/clients.js';
import { type RedisServer, startRedisServer } from './helpers/redis-server.js';

const newId = () => randomBytes(24).toString('base64url');
const inFiveMinutes = () => Date.now() + 300_000;
const TIMEOUT = 250;

/** Run `record()` and return how it ended and how long it took. */
async function timed(promise: Promise<boolean>): Promise<{ ms: number; value?: boolean; error?: unknown }> {
  const start = performance.now();
  try {
    const value = await promise;
    return { ms: performance.now() - start, value };
  } catch (error) {
    return { ms: performance.now() - start, error };
  }
}

describe.each(CLIENTS)('with $name', (flavour) => {
  let server: RedisServer;
  const clients: TestClient[] = [];
  const connect = async (options?: { disableOfflineQueue?: boolean }) => {
    const client = await flavour.connect(server.url, options);
    clients.push(client);
    return client;
  };
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    try {
      for (const client of clients) if (client.isOpen) client.destroy();
    } finally {
      await server?.dispose();
    }
  });

  it('rejects with reason "timeout" within the timeout when Redis hangs', async () => {
    const client = await connect();
    const admin = await connect();
    const store = createRedisReplayStore({ client, timeout: TIMEOUT });
    const id = newId();
    // Redis holds every write command for 3 s: SET is sent and never answered in time.
    await admin.sendCommand(['CLIENT', 'PAUSE', '3000', 'WRITE']);
    try {
      const outcome = await timed(store.record(id, inFiveMinutes()));
      expect(outcome.value).toBeUndefined();
      expect(outcome.error).toBeInstanceOf(RedisReplayStoreError);
      expect(outcome.error).toMatchObject({ reason: 'timeout', name: 'RedisReplayStoreError' });
      expect((outcome.error as Error).message).not.toContain(id);
      expect(outcome.ms).toBeGreaterThanOrEqual(TIMEOUT - 5);
      // Well before the pause ends (3 s), with room for a loaded machine's late timers.
      expect(outcome.ms).toBeLessThan(TIMEOUT + 1_500);
    } finally {
      await admin.sendCommand(['CLIENT', 'UNPAUSE']);
    }
    // The SET was sent before the deadline and Redis applies it once unpaused: the id now counts as
    // seen (a replay of a proof whose request got 503 is refused, never accepted twice).
    await expect(store.record(id, inFiveMinutes())).resolves.toBe(false);
    await expect(store.record(newId(), inFiveMinutes())).resolves.toBe(true);
  });

  it('rejects within the timeout while redis-server is stopped, and works again after it restarts', async () => {
    const client = await connect();
    const store = createRedisReplayStore({ client, timeout: TIMEOUT });
    const before = newId();
    await expect(store.record(before, inFiveMinutes())).resolves.toBe(true);

    await server.stop();
    try {
      // Calls made right after the crash and once the client knows it is disconnected (it then queues
      // commands until it reconnects): every one rejects, none resolves.
      const outcomes = [await timed(store.record(newId(), inFiveMinutes()))];
      await waitFor(() => !client.isReady, 5_000, 'the client to notice the outage');
      outcomes.push(
        ...(await Promise.all([1, 2, 3].map(() => timed(store.record(newId(), inFiveMinutes()))))),
      );
      for (const outcome of outcomes) {
        expect(outcome.value).toBeUndefined();
        expect(outcome.error).toBeInstanceOf(RedisReplayStoreError);
        expect(outcome.ms).toBeLessThan(TIMEOUT + 1_500);
      }
    } finally {
      await server.start();
    }
    await waitFor(() => client.isReady, 10_000, 'the client to reconnect');
    const id = newId();
    await expect(store.record(id, inFiveMinutes())).resolves.toBe(true);
    await expect(store.record(id, inFiveMinutes())).resolves.toBe(false);
    // Without persistence (this server has none), what Redis held before it stopped is gone.
    await expect(store.record(before, inFiveMinutes())).resolves.toBe(true);
  });

  it('rejects at once while disconnected when the client has disableOfflineQueue', async () => {
    const client = await connect({ disableOfflineQueue: true });
    const store = createRedisReplayStore({ client, timeout: 5_000 });
    await server.stop();
    try {
      await waitFor(() => !client.isReady, 5_000, 'the client to notice the outage');
      const outcome = await timed(store.record(newId(), inFiveMinutes()));
      expect(outcome.error).toBeInstanceOf(RedisReplayStoreError);
      expect(outcome.error).toMatchObject({ reason: 'command_failed' });
      expect((outcome.error as Error).cause).toBeInstanceOf(Error);
      // Far below the store's 5 s timeout: the client refused the command itself.
      expect(outcome.ms).toBeLessThan(1_000);
    } finally {
      await server.start();
    }
    await waitFor(() => client.isReady, 10_000, 'the client to reconnect');
    await expect(store.record(newId(), inFiveMinutes())).resolves.toBe(true);
  });

  it('rejects with reason "command_failed" when Redis answers an error (OOM), with it as cause', async () => {
    const client = await connect();
    const admin = await connect();
    const store = createRedisReplayStore({ client, timeout: TIMEOUT });
    await admin.sendCommand(['CONFIG', 'SET', 'maxmemory-policy', 'noeviction']);
    await admin.sendCommand(['CONFIG', 'SET', 'maxmemory', '1']);
    try {
      const error = await store.record(newId(), inFiveMinutes()).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(error).toBeInstanceOf(RedisReplayStoreError);
      expect(error).toMatchObject({ reason: 'command_failed' });
      expect((error as Error).message).toMatch(/OOM/);
      expect(String(((error as Error).cause as Error).message)).toMatch(/^OOM/);
    } finally {
      await admin.sendCommand(['CONFIG', 'SET', 'maxmemory', '0']);
    }
    await expect(store.record(newId(), inFiveMinutes())).resolves.toBe(true);
  });

  it('rejects with reason "command_failed" on a closed or never-connected client', async () => {
    const closed = await connect();
    closed.destroy();
    const never = flavour.unconnected(server.url);
    for (const client of [closed, never]) {
      const outcome = await timed(
        createRedisReplayStore({ client, timeout: 5_000 }).record(newId(), inFiveMinutes()),
      );
      expect(outcome.error).toBeInstanceOf(RedisReplayStoreError);
      expect(outcome.error).toMatchObject({ reason: 'command_failed' });
      expect(outcome.ms).toBeLessThan(1_000);
    }
  });
});

describe('a node-redis client in legacy (callback) mode', () => {
  it('makes record() reject with reason "unexpected_reply" (the types refuse it: see types.test.ts)', async () => {
    const server = await startRedisServer();
    const client = await CLIENTS[0]!.connect(server.url);
    try {
      const legacy = (client as unknown as { legacy(): unknown }).legacy() as Parameters<
        typeof createRedisReplayStore
      >[0]['client'];
      const outcome = await timed(
        createRedisReplayStore({ client: legacy }).record(newId(), inFiveMinutes()),
      );
      expect(outcome.error).toBeInstanceOf(RedisReplayStoreError);
      expect(outcome.error).toMatchObject({ reason: 'unexpected_reply' });
      expect((outcome.error as Error).message).toMatch(/legacy-mode client/);
    } finally {
      client.destroy();
      await server.dispose();
    }
  });
});
