/**
 * Password hashing for the sign-in page on dedicated worker threads at the lowest CPU priority
 * (nice 19). A flood of sign-ins keeps these threads busy, but the scheduler serves the issuer's main
 * thread and libuv's pool (token signing) first: hashes use the CPU time nothing else wants. On a
 * machine whose CPUs are all busy, sign-ins therefore slow down before token issuance does. With the bound of `hash-pool.ts` (one worker per slot), a login flood
 * costs token issuance neither pool threads nor CPU.
 *
 * The worker is text handed to `new Worker(…, { eval: true })` (as the custom-claims worker), so it
 * runs the same from sources, from `dist/` and under vitest.
 *
 * @module
 */
import { Worker } from 'node:worker_threads';
import { type KeyDerivation, scryptOptions } from '../internal/secrets.js';

/** The workers' source: lower its own thread's priority (Linux: per thread), then derive keys on request. */
const SOURCE = `'use strict';
const { parentPort } = require('node:worker_threads');
const { scryptSync } = require('node:crypto');
try { require('node:os').setPriority(19); } catch {}
parentPort.on('message', ({ id, password, salt, cost, options }) => {
  try {
    parentPort.postMessage({ id, key: scryptSync(password, Buffer.from(salt), 32, options) });
  } catch {
    parentPort.postMessage({ id, error: true });
  }
});`;

/**
 * Low-priority hashing threads.
 *
 * @example
 * ```ts
 * const workers = createHashWorkers(2);
 * const ok = await verifyPassword(password, stored, workers.derive);
 * await workers.close();
 * ```
 */
export interface HashWorkers {
  /** A {@link KeyDerivation} on a free worker (callers keep at most `count` running: see `hash-pool.ts`). */
  readonly derive: KeyDerivation;
  /** Stop the threads. */
  close(): Promise<void>;
}

interface Pending {
  resolve(key: Buffer): void;
  reject(err: Error): void;
}

/**
 * Start up to `count` hashing threads (each on first need).
 *
 * @example
 * ```ts
 * const workers = createHashWorkers(config.signIn.concurrentHashes);
 * ```
 */
export function createHashWorkers(count: number): HashWorkers {
  const idle: Worker[] = [];
  const all = new Set<Worker>();
  const waiting: ((worker: Worker) => void)[] = [];
  const pending = new Map<number, Pending>();
  /** The request each worker is working on, so a worker that dies fails it instead of leaving it hanging. */
  const working = new Map<Worker, number>();
  let nextId = 0;
  let closed = false;

  const spawn = (): Worker => {
    const worker = new Worker(SOURCE, { eval: true });
    worker.unref();
    worker.on('message', ({ id, key, error }: { id: number; key?: Uint8Array; error?: true }) => {
      const entry = pending.get(id);
      pending.delete(id);
      working.delete(worker);
      if (error || key === undefined) entry?.reject(new Error('password hashing failed'));
      else entry?.resolve(Buffer.from(key));
      release(worker);
    });
    worker.on('error', () => undefined);
    worker.on('exit', () => {
      const id = working.get(worker);
      working.delete(worker);
      if (id !== undefined) {
        pending.get(id)?.reject(new Error('password hashing failed'));
        pending.delete(id);
      }
      all.delete(worker);
      const at = idle.indexOf(worker);
      if (at >= 0) idle.splice(at, 1);
      // A caller waiting for a worker gets a new one in place of the one that died.
      const next = closed ? undefined : waiting.shift();
      next?.(spawn());
    });
    all.add(worker);
    return worker;
  };
  const release = (worker: Worker) => {
    const next = waiting.shift();
    if (next === undefined) idle.push(worker);
    else next(worker);
  };
  const acquire = (): Promise<Worker> => {
    const free = idle.pop();
    if (free !== undefined) return Promise.resolve(free);
    if (all.size < count) return Promise.resolve(spawn());
    return new Promise((resolve) => waiting.push(resolve));
  };

  return {
    async derive(password, salt, cost) {
      if (closed) throw new Error('the issuer is closed');
      const worker = await acquire();
      const id = nextId++;
      return new Promise<Buffer>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        working.set(worker, id);
        worker.postMessage({ id, password, salt, cost, options: scryptOptions(cost) });
      });
    },
    async close() {
      closed = true;
      await Promise.all([...all].map((worker) => worker.terminate()));
      for (const entry of pending.values()) entry.reject(new Error('the issuer is closed'));
      pending.clear();
    },
  };
}
