/**
 * Maintenance timers: every `maintenance.purgeInterval` milliseconds, expired oidc-provider payloads,
 * failure counters, subject tokens past `subjectTokens.retention` and settled webhook deliveries past
 * `webhooks.retention` are deleted. Expired rows are
 * never served either way; the purge only bounds the tables. Failures are logged and retried on the
 * next tick.
 *
 * @module
 */
import type { Logger } from 'pino';
import { DEFAULTS } from './config/defaults.js';
import { epoch } from './internal/ids.js';
import type { Store } from './storage/store.js';

/**
 * Start the purge timer (unref'd: it never keeps the process alive). Returns the function that stops it.
 *
 * @example
 * ```ts
 * const stop = startMaintenance(store, log);
 * // … on close
 * stop();
 * ```
 */
export function startMaintenance(store: Store, log: Logger): () => void {
  const failed = (err: unknown) =>
    log.warn({ event: 'purge_failed', err: { message: (err as Error).message } });
  const timer = setInterval(() => {
    store.payloads.purgeExpired(epoch()).catch(failed);
    // Expired subject tokens are kept a while so a late replay is still explained ("expired", not "unknown").
    store.subjectTokens.purgeExpired(epoch() - DEFAULTS.subjectTokens.retention).catch(failed);
    store.failures.purgeExpired(epoch()).catch(failed);
    store.webhooks.purgeSettled(epoch() - DEFAULTS.webhooks.retention).catch(failed);
    store.impersonationTokens.purgeExpired(epoch()).catch(failed);
  }, DEFAULTS.maintenance.purgeInterval);
  timer.unref();
  return () => clearInterval(timer);
}
