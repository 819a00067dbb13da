/**
 * A graceful stop (`issuer.shutdown()`; the CLI runs it on SIGTERM and SIGINT), in order:
 *
 * 1. draining: `/health/ready` answers `503` at once, every answer carries `Connection: close`, and the
 *    webhook loop claims nothing more;
 * 2. `shutdown.drainDelay` seconds of serving as before, so load balancers see the `503` and stop
 *    sending requests;
 * 3. no new connections; idle kept-alive ones are closed; the requests in flight are answered and the
 *    webhook deliveries under way finish;
 * 4. timers stopped, workers and the database closed (`close()`).
 *
 * All within `shutdown.drainTimeout` seconds of the start: past it, the requests still in flight are
 * cut, the webhook deliveries still under way are handed back to the queue (due at once, for any
 * instance), a log line (`shutdown.cut`) says how many of each, and the result is not `clean`.
 *
 * @module
 */
import type { Logger } from 'pino';
import { DEFAULTS } from './config/defaults.js';
import type { ResolvedShutdownConfig } from './config/shutdown.js';
import type { Health } from './health.js';
import type { Serving } from './serving.js';
import type { WebhookDispatcher } from './webhooks/dispatcher.js';

/**
 * How a shutdown went.
 *
 * @example
 * ```ts
 * const { clean, cut }: ShutdownResult = await issuer.shutdown('SIGTERM');
 * process.exit(clean ? 0 : 1);
 * ```
 */
export interface ShutdownResult {
  /** Every request was answered and every webhook delivery finished within `drainTimeout`, and all closed. */
  readonly clean: boolean;
  /** What was still under way when `drainTimeout` passed (both 0 when clean). */
  readonly cut: { readonly requests: number; readonly webhookDeliveries: number };
  /** Milliseconds from the start of the shutdown to the end of closing. */
  readonly ms: number;
}

/**
 * What a shutdown acts on.
 *
 * @example
 * ```ts
 * const deps: ShutdownDeps = { settings: config.shutdown, log, health, servers, webhooks, close };
 * ```
 */
export interface ShutdownDeps {
  readonly settings: ResolvedShutdownConfig;
  readonly log: Logger;
  readonly health: Pick<Health, 'markDraining'>;
  readonly servers: Pick<Serving, 'markDraining' | 'drain' | 'inFlight'>;
  readonly webhooks: Pick<WebhookDispatcher, 'drain' | 'inFlight'>;
  /** Close everything now: connections still open are dropped, deliveries under way handed back. */
  readonly close: () => Promise<void>;
  /** Milliseconds closing may take once the drain is over or cut (default `DEFAULTS.shutdown.closeTimeout`). */
  readonly closeTimeout?: number | undefined;
}

/**
 * The issuer's shutdown.
 *
 * @example
 * ```ts
 * const shutdown: Shutdown = createShutdown(deps);
 * const result = await shutdown.run('SIGTERM');
 * ```
 */
export interface Shutdown {
  /** Run the shutdown (once: later calls resolve to the same result). */
  run(reason?: string): Promise<ShutdownResult>;
  /** Whether {@link run} was called. */
  readonly started: boolean;
  /** Cut a shutdown under way now, as if `drainTimeout` had passed (no-op when none is). */
  cut(): void;
}

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * Prepare the shutdown of an issuer.
 *
 * @example
 * ```ts
 * const shutdown = createShutdown({ settings: config.shutdown, log, health, servers, webhooks, close });
 * process.once('SIGTERM', () => shutdown.run('SIGTERM').then(({ clean }) => process.exit(clean ? 0 : 1)));
 * ```
 */
export function createShutdown(deps: ShutdownDeps): Shutdown {
  const { settings, log } = deps;
  const closeTimeout = deps.closeTimeout ?? DEFAULTS.shutdown.closeTimeout;
  let running: Promise<ShutdownResult> | undefined;
  let cutNow: () => void = () => {};
  type Cut = 'drainTimeout' | 'close';

  const run = async (reason: string | undefined): Promise<ShutdownResult> => {
    const started = performance.now();
    const timers = new Set<NodeJS.Timeout>();
    const after = <T>(ms: number, value: T) =>
      new Promise<T>((resolve) => {
        timers.add(setTimeout(() => resolve(value), ms));
      });
    const cut = Promise.race([
      after<Cut>(settings.drainTimeout * 1_000, 'drainTimeout'),
      new Promise<Cut>((resolve) => {
        cutNow = () => resolve('close');
      }),
    ]);

    deps.health.markDraining();
    deps.servers.markDraining();
    const webhooksDone = deps.webhooks.drain();
    log.info(
      {
        event: 'shutdown.draining',
        reason,
        drainDelay: settings.drainDelay,
        drainTimeout: settings.drainTimeout,
      },
      `shutting down: /health/ready answers 503; still serving for ${settings.drainDelay} s`,
    );
    await Promise.race([after(settings.drainDelay * 1_000, 'delay'), cut]);

    log.info(
      {
        event: 'shutdown.closing',
        requests: deps.servers.inFlight,
        webhookDeliveries: deps.webhooks.inFlight,
      },
      'no longer accepting connections; finishing the requests and webhook deliveries under way',
    );
    const drained = Promise.all([deps.servers.drain(), webhooksDone]).then(() => 'drained' as const);
    const outcome = await Promise.race([drained, cut]);
    const counts = { requests: deps.servers.inFlight, webhookDeliveries: deps.webhooks.inFlight };
    const clean = outcome === 'drained';
    if (outcome !== 'drained') {
      const when =
        outcome === 'drainTimeout'
          ? `after ${settings.drainTimeout} s (shutdown.drainTimeout)`
          : 'short by close() or a second signal';
      log.error(
        { event: 'shutdown.cut', cause: outcome, drainTimeout: settings.drainTimeout, ...counts },
        `shutdown cut ${when}: closed ${count(counts.requests, 'request', 'requests')} still in flight, handed ${count(counts.webhookDeliveries, 'webhook delivery', 'webhook deliveries')} back to the queue`,
      );
    }

    const closed = await Promise.race([
      deps.close().then(() => 'closed' as const),
      after(closeTimeout, 'timeout' as const),
    ]);
    for (const timer of timers) clearTimeout(timer);
    if (closed !== 'closed')
      log.error(
        { event: 'shutdown.close_timeout', closeTimeout },
        `closing took longer than ${closeTimeout} ms; stopping with it unfinished`,
      );
    const ms = Math.round(performance.now() - started);
    const result = {
      clean: clean && closed === 'closed',
      cut: clean ? { requests: 0, webhookDeliveries: 0 } : counts,
      ms,
    };
    log.info({ event: 'shutdown.complete', ...result }, result.clean ? 'shut down' : 'shut down, cut short');
    return result;
  };

  return {
    run(reason) {
      running ??= run(reason);
      return running;
    },
    get started() {
      return running !== undefined;
    },
    cut() {
      cutNow();
    },
  };
}
