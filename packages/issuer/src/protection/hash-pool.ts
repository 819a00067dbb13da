/**
 * A bound on password hashing. Every sign-in costs one scrypt run on libuv's thread pool (4 threads
 * by default), which also signs tokens (WebCrypto) and reads files; unbounded, a login flood queues
 * token issuance behind thousands of hashes. At most `concurrent` hashes run at once, at most `queued`
 * wait, and any further attempt is refused at once ({@link HashPoolBusyError}) instead of waiting.
 * Written here (a counter and a queue) rather than taken from a library: the refusal when the queue is
 * full is the point, and it is a few lines.
 *
 * @module
 */

/**
 * Every hash slot is taken and the queue is full: the caller answers `503` with `Retry-After`.
 *
 * @example
 * ```ts
 * try { await pool.run(() => verifyPassword(password, hash)); }
 * catch (err) { if (err instanceof HashPoolBusyError) res.setHeader('retry-after', '1'); }
 * ```
 */
export class HashPoolBusyError extends Error {
  readonly reason = 'busy' as const;
  constructor() {
    super('too many password checks in progress');
    this.name = 'HashPoolBusyError';
  }
}

/**
 * Runs password hashes with bounded concurrency.
 *
 * @example
 * ```ts
 * const pool = createHashPool({ concurrent: 2, queued: 16 });
 * const ok = await pool.run(() => verifyPassword(password, user.passwordHash));
 * ```
 */
export interface HashPool {
  /** Run `task` when a slot is free; rejects with {@link HashPoolBusyError} when the queue is full. */
  run<T>(task: () => Promise<T>): Promise<T>;
}

/**
 * Create a pool of `concurrent` slots and a queue of `queued` waiting tasks.
 *
 * @example
 * ```ts
 * const pool = createHashPool({ concurrent: 1, queued: 0 }); // one at a time, nobody waits
 * ```
 */
export function createHashPool(options: { readonly concurrent: number; readonly queued: number }): HashPool {
  let running = 0;
  const waiting: (() => void)[] = [];
  const release = () => {
    const next = waiting.shift();
    if (next === undefined) running -= 1;
    else next();
  };
  return {
    async run(task) {
      if (running < options.concurrent) running += 1;
      else if (waiting.length < options.queued) await new Promise<void>((resolve) => waiting.push(resolve));
      else throw new HashPoolBusyError();
      try {
        return await task();
      } finally {
        release();
      }
    },
  };
}
