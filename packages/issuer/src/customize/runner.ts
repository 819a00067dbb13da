/**
 * Runs the custom JWT claims function in worker threads, isolated from the server: each call gets a
 * worker to itself, a deadline (`customJwtClaims.timeout`, counted from the moment the call is
 * queued) and a heap limit (`customJwtClaims.memoryLimit`). A worker that hangs past the deadline is
 * terminated and replaced; one that crashes or runs out of memory only fails its own call. The main
 * thread never waits on user code, so other requests keep being served. The worker's `process.env` is
 * empty: the function sees only `environmentVariables`.
 *
 * @module
 */
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { CustomClaimsFailure } from '../errors.js';
import type { CustomClaimsContext } from './types.js';
import { WORKER_SOURCE } from './worker.js';

/** What one call produced. */
export type ClaimsOutcome =
  | { readonly kind: 'claims'; readonly json: string }
  | { readonly kind: 'denied'; readonly message: string }
  | { readonly kind: 'failed'; readonly failure: CustomClaimsFailure };

/** Options of {@link createClaimsRunner}. */
export interface ClaimsRunnerOptions {
  /** Absolute path of the module. */
  readonly module: string;
  readonly environmentVariables: Readonly<Record<string, string>>;
  /** Milliseconds per call. */
  readonly timeout: number;
  /** MiB of heap per worker. */
  readonly memoryLimit: number;
  /** Largest serialized result. */
  readonly maxResultBytes: number;
  /** Most workers at once. */
  readonly workers: number;
}

/** A pool of claims workers. */
export interface ClaimsRunner {
  /** The result size cap it enforces. */
  readonly maxResultBytes: number;
  /** Start one worker and load the module; resolves to `false` when it cannot be loaded. */
  ready(): Promise<boolean>;
  /** Run the function once. Never rejects. */
  run(input: {
    readonly token: Record<string, unknown>;
    readonly context: CustomClaimsContext;
  }): Promise<ClaimsOutcome>;
  /** Terminate every worker; pending calls fail. */
  close(): Promise<void>;
}

interface Job {
  readonly id: number;
  readonly input: unknown;
  readonly finish: (outcome: ClaimsOutcome) => void;
  slot: Slot | undefined;
}

interface Slot {
  readonly worker: Worker;
  readonly loaded: Promise<boolean>;
  job: Job | undefined;
  dead: boolean;
}

const WORKER_MESSAGE_TYPES = new Set(['result', 'denied', 'error']);

/**
 * Create the pool. Workers start lazily (and {@link ClaimsRunner.ready} starts the first).
 *
 * @example
 * ```ts
 * const runner = createClaimsRunner({ module: '/abs/claims.mjs', environmentVariables: {}, timeout: 5000,
 *   memoryLimit: 128, maxResultBytes: 65536, workers: 2 });
 * const outcome = await runner.run({ token: { sub: 'usr_1' }, context });
 * ```
 */
export function createClaimsRunner(options: ClaimsRunnerOptions): ClaimsRunner {
  const slots: Slot[] = [];
  const queue: Job[] = [];
  let nextId = 1;
  let closed = false;

  const fail = (job: Job, failure: CustomClaimsFailure) => job.finish({ kind: 'failed', failure });

  function kill(slot: Slot): void {
    if (slot.dead) return;
    slot.dead = true;
    slots.splice(slots.indexOf(slot), 1);
    void slot.worker.terminate();
  }

  function spawn(): Slot {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      env: {},
      workerData: {
        moduleUrl: pathToFileURL(options.module).href,
        environmentVariables: { ...options.environmentVariables },
        maxResultBytes: options.maxResultBytes,
      },
      resourceLimits: {
        maxOldGenerationSizeMb: options.memoryLimit,
        maxYoungGenerationSizeMb: Math.max(4, Math.min(32, Math.floor(options.memoryLimit / 8))),
        stackSizeMb: 4,
      },
      stdout: true,
      stderr: true,
    });
    worker.unref();
    // The function's console output is dropped: it may print anything, tokens included.
    worker.stdout.resume();
    worker.stderr.resume();
    let markLoaded!: (loaded: boolean) => void;
    const slot: Slot = {
      worker,
      loaded: new Promise<boolean>((resolve) => {
        markLoaded = resolve;
      }),
      job: undefined,
      dead: false,
    };
    const end = (failure: CustomClaimsFailure) => {
      markLoaded(false);
      const job = slot.job;
      slot.job = undefined;
      kill(slot);
      if (job !== undefined) fail(job, failure);
      dispatch();
    };
    worker.on(
      'message',
      (message: { type?: unknown; id?: unknown; json?: unknown; message?: unknown; failure?: unknown }) => {
        if (message?.type === 'ready') return markLoaded(true);
        if (message?.type === 'load_failed') return end('load_failed');
        const job = slot.job;
        if (job === undefined || message?.id !== job.id || !WORKER_MESSAGE_TYPES.has(String(message.type)))
          return;
        slot.job = undefined;
        if (message.type === 'result' && typeof message.json === 'string')
          job.finish({ kind: 'claims', json: message.json });
        else if (message.type === 'denied')
          job.finish({ kind: 'denied', message: String(message.message ?? '') });
        else fail(job, (message.failure as CustomClaimsFailure) ?? 'threw');
        dispatch();
      },
    );
    worker.on('error', (err: Error & { code?: string }) =>
      end(err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'out_of_memory' : 'crashed'),
    );
    worker.on('exit', () => end('crashed'));
    slots.push(slot);
    return slot;
  }

  function dispatch(): void {
    while (queue.length > 0 && !closed) {
      const slot =
        slots.find((candidate) => candidate.job === undefined && !candidate.dead) ??
        (slots.length < options.workers ? spawn() : undefined);
      if (slot === undefined) return;
      const job = queue.shift()!;
      job.slot = slot;
      slot.job = job;
      void slot.loaded.then((loaded) => {
        if (!loaded || slot.job !== job) return;
        slot.worker.postMessage({ id: job.id, input: job.input });
      });
    }
  }

  return {
    maxResultBytes: options.maxResultBytes,
    async ready() {
      if (closed) return false;
      const slot = slots[0] ?? spawn();
      return slot.loaded;
    },
    run(input) {
      return new Promise<ClaimsOutcome>((resolve) => {
        if (closed) {
          resolve({ kind: 'failed', failure: 'crashed' });
          return;
        }
        let settled = false;
        const job: Job = {
          id: nextId++,
          input,
          slot: undefined,
          finish: (outcome) => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            resolve(outcome);
          },
        };
        const timer = setTimeout(() => {
          const index = queue.indexOf(job);
          if (index >= 0) queue.splice(index, 1);
          const slot = job.slot;
          if (slot !== undefined && slot.job === job) {
            slot.job = undefined;
            kill(slot);
          }
          fail(job, 'timeout');
          dispatch();
        }, options.timeout);
        timer.unref();
        queue.push(job);
        dispatch();
      });
    },
    async close() {
      closed = true;
      for (const job of queue.splice(0)) fail(job, 'crashed');
      await Promise.all(
        [...slots].map(async (slot) => {
          const job = slot.job;
          slot.job = undefined;
          slot.dead = true;
          if (job !== undefined) fail(job, 'crashed');
          await slot.worker.terminate();
        }),
      );
      slots.length = 0;
    },
  };
}
