/**
 * Fixed-window rate limits decided in memory, with no database round trip on the request path, and
 * shared across instances through the store's counters (`failure_counters`).
 *
 * Each instance counts the requests it sees per key in a bounded LRU map and decides each request at
 * once from what it knows: the shared total it last read plus what it counted since. Every
 * `syncInterval` milliseconds a background flush sends the counts of all keys it tracks to the store in
 * one upsert (one statement, however many keys) and reads back the shared totals, so every instance on
 * one PostgreSQL database soon knows what the others counted. A failed flush is logged and its counts
 * are sent again with the next one; it never fails a request.
 *
 * The trade-off: across instances a limit can be exceeded by at most what the other instances counted
 * during one sync interval (and never by more than what they could admit on their own: each instance
 * alone stops at the limit). On one instance (SQLite) the limit is exact.
 *
 * Windows open at a key's first request and the store's window, once read back, is the one every
 * instance follows. Keys are stored as SHA-256 digests (`counterKey`, taken when a flush sends them, not
 * per request), so no client id or address is written to the database in clear.
 *
 * @module
 */
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { counterKey } from '../grants/failure-limiter.js';
import type { FailureCounterStore } from '../storage/tables/failure-counters.js';

/**
 * One limit a request is counted under: at most `max` requests of `key` per window.
 *
 * @example
 * ```ts
 * const check: RateCheck = { key: `management\n${clientId}`, max: 1_200 };
 * ```
 */
export interface RateCheck {
  readonly key: string;
  readonly max: number;
}

/**
 * Counts requests in fixed windows.
 *
 * @example
 * ```ts
 * const [wait] = limiter.hit([{ key: `management\n${clientId}`, max: 1_200 }], epoch());
 * if (wait! > 0) throw new RateLimitedError(wait!);
 * ```
 */
export interface RateLimiter {
  /**
   * Count one request under each check (distinct keys), in memory; returns each one's wait: the seconds
   * until its window ends when over its `max`, else 0.
   */
  hit(checks: readonly RateCheck[], now: number): number[];
  /** Send the counts to the store and read back the shared totals (what the timer does). */
  flush(): Promise<void>;
  /** Stop the timer and flush once more. */
  close(): Promise<void>;
}

/**
 * What {@link createRateLimiter} needs.
 *
 * @example
 * ```ts
 * const options: RateLimiterOptions = { ...config.rateLimits, ...DEFAULTS.rateLimitTracking, counters, log, now: epoch };
 * ```
 */
export interface RateLimiterOptions {
  /** Window length in seconds. */
  readonly window: number;
  /** Milliseconds between flushes to the store. */
  readonly syncInterval: number;
  /** Keys tracked at once; the least recently used beyond it are flushed and forgotten. */
  readonly maxKeys: number;
  /** Keys sent in one statement (a flush of more sends several, one after the other). */
  readonly keysPerStatement: number;
  /** The shared counters. */
  readonly counters: FailureCounterStore;
  readonly log: Logger;
  /** Epoch seconds (the flush's clock). */
  readonly now: () => number;
}

/** One key's window as this instance knows it. */
interface Tracked {
  /** Epoch second the window ends. */
  endsAt: number;
  /** The shared total last read from the store (this instance's flushed counts included). */
  shared: number;
  /** Counted here and not yet flushed (including counts of a flush still under way). */
  pending: number;
}

/**
 * Create a limiter; its flush timer is started at once and does not keep the process alive.
 *
 * @example
 * ```ts
 * const limiter = createRateLimiter({ ...config.rateLimits, ...DEFAULTS.rateLimitTracking, counters: store.failures, log, now: epoch });
 * limiter.hit([{ key: `token-client\n${clientId}`, max: 600 }], epoch()); // [0]
 * await limiter.close();
 * ```
 */
export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const { window, counters, log, now } = options;
  // Keys evicted (or whose flush failed after eviction) with counts not yet in the store: sent with the
  // next flush, or taken back when their key is counted again first.
  const evicted = new Map<string, Tracked>();
  const tracked = new LRUCache<string, Tracked>({
    max: options.maxKeys,
    dispose: (entry, key, reason) => {
      if (reason === 'evict' && entry.pending > 0) evicted.set(key, entry);
    },
  });
  let running: Promise<void> | undefined;

  const open = (key: string, at: number): Tracked => {
    let entry = tracked.get(key) ?? evicted.get(key);
    evicted.delete(key);
    if (entry === undefined || entry.endsAt <= at) entry = { endsAt: at + window, shared: 0, pending: 0 };
    tracked.set(key, entry);
    return entry;
  };

  async function send(): Promise<void> {
    const at = now();
    const batch: { key: string; entry: Tracked }[] = [];
    for (const [key, entry] of [...tracked.entries(), ...evicted.entries()]) {
      if (entry.endsAt > at) batch.push({ key, entry });
      else tracked.delete(key);
    }
    evicted.clear();
    for (let start = 0; start < batch.length; start += options.keysPerStatement)
      await sendSome(batch.slice(start, start + options.keysPerStatement), at);
  }

  async function sendSome(batch: readonly { key: string; entry: Tracked }[], at: number): Promise<void> {
    const sent = batch.map(({ entry }) => entry.pending);
    let windows: Awaited<ReturnType<FailureCounterStore['incrementAll']>>;
    try {
      windows = await counters.incrementAll(
        batch.map(({ key, entry }, index) => ({
          key: counterKey(key),
          window: entry.endsAt - at,
          count: sent[index]!,
        })),
        at,
      );
    } catch (err) {
      // Nothing is subtracted: the next flush sends these counts again (those of keys no longer tracked
      // included, unless their key was counted again meanwhile — then they are lost, a rare undercount).
      for (const { key, entry } of batch)
        if (entry.pending > 0 && !tracked.has(key) && !evicted.has(key)) evicted.set(key, entry);
      log.warn({
        event: 'rate_limit_sync_failed',
        keys: batch.length,
        err: { message: (err as Error).message },
      });
      return;
    }
    for (const [index, { key, entry }] of batch.entries()) {
      entry.pending -= sent[index]!;
      // A key reopened meanwhile (its window ended) keeps its new window.
      if (tracked.peek(key) !== entry) continue;
      entry.shared = windows[index]!.count;
      entry.endsAt = windows[index]!.endsAt;
    }
  }

  const flush = (): Promise<void> => {
    running ??= send().finally(() => {
      running = undefined;
    });
    return running;
  };

  const timer = setInterval(() => void flush(), options.syncInterval);
  timer.unref();

  return {
    hit(checks, at) {
      return checks.map(({ key, max }) => {
        const entry = open(`rate\n${key}`, at);
        entry.pending += 1;
        return entry.shared + entry.pending > max ? Math.max(entry.endsAt - at, 1) : 0;
      });
    },
    flush: async () => {
      await running;
      await flush();
    },
    async close() {
      clearInterval(timer);
      await running;
      await flush();
    },
  };
}
