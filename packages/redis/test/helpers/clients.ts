/**
 * The node-redis majors the store is tested with (the peer range is `^5 || ^6`): the current `redis`
 * (v6, RESP3 by default) and v5 through the `redis5` alias (RESP2 by default). Each entry connects a
 * real client to a URL, with an `'error'` listener as every application must attach.
 */
import { createClient as createClientV6 } from 'redis';
import { createClient as createClientV5 } from 'redis5';
import type { RedisSetClient } from '../../src/index.js';

/** What the tests use of a client, besides `set()`. */
export interface TestClient extends RedisSetClient {
  get(key: string): Promise<unknown>;
  pTTL(key: string): Promise<unknown>;
  sendCommand(args: string[]): Promise<unknown>;
  readonly isOpen: boolean;
  readonly isReady: boolean;
  destroy(): void;
}

export interface ClientOptions {
  /** Reject commands at once while disconnected (node-redis `disableOfflineQueue`). */
  readonly disableOfflineQueue?: boolean;
}

export interface ClientFlavour {
  readonly name: string;
  /** A connected client. */
  connect(url: string, options?: ClientOptions): Promise<TestClient>;
  /** A client that was never connected. */
  unconnected(url: string): TestClient;
}

const ignore = () => {};

export const CLIENTS: readonly ClientFlavour[] = [
  {
    name: 'redis v6 (RESP3)',
    connect: (url, options = {}) =>
      createClientV6({ url, ...options })
        .on('error', ignore)
        .connect(),
    unconnected: (url) => createClientV6({ url }).on('error', ignore),
  },
  {
    name: 'redis v5 (RESP2)',
    connect: (url, options = {}) =>
      createClientV5({ url, ...options })
        .on('error', ignore)
        .connect(),
    unconnected: (url) => createClientV5({ url }).on('error', ignore),
  },
];

/** Calls per command since the last `CONFIG RESETSTAT`, from `INFO commandstats`. */
export async function commandCalls(admin: TestClient): Promise<Record<string, number>> {
  const info = String(await admin.sendCommand(['INFO', 'commandstats']));
  const calls: Record<string, number> = {};
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls[match[1]!] = Number(match[2]);
  return calls;
}

/** Resolve when `check()` is true, or throw after `ms`. */
export async function waitFor(check: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
