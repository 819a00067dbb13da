/**
 * The delivery loop each issuer process runs: every `pollInterval` it claims the deliveries that are
 * due (`store.webhooks.claimDue`: a delivery is claimed by exactly one process, for the attempt's
 * timeout plus `claimMargin`), POSTs each event to its endpoint, signed (`signature.ts`), and records
 * the outcome: delivered on a 2xx answer; otherwise retried after `retryDelay` × 2^(attempts − 1)
 * (at most `maxRetryDelay`), and given up after `maxAttempts`. Redirects are not followed (a 3xx is a
 * failure). Since the queue is in the database, a restart loses nothing: a pending delivery is picked
 * up by whichever process looks next; attempts under way when the issuer closes are cut short and
 * handed back to the queue, due at once (without counting against `maxAttempts`). Logs name the event and endpoint ids, never the URL (it may
 * carry credentials) or the secret.
 *
 * @module
 */
import type { Logger } from 'pino';
import { DEFAULTS } from '../config/defaults.js';
import { epoch } from '../internal/ids.js';
import type { Store, WebhookDeliveryRecord, WebhookOutcome } from '../storage/store.js';
import type { SecretBox } from './secret-box.js';
import { signWebhook, WEBHOOK_SIGNATURE_HEADER } from './signature.js';

/** The timing of the loop (`DEFAULTS.webhooks` unless given). */
export type DispatcherTiming = {
  readonly [K in
    | 'timeout'
    | 'maxAttempts'
    | 'retryDelay'
    | 'maxRetryDelay'
    | 'pollInterval'
    | 'batchSize'
    | 'claimMargin']: number;
};

/**
 * A running delivery loop.
 *
 * @example
 * ```ts
 * const dispatcher = startWebhookDispatcher({ store, log, box: createSecretBox(store) });
 * // … on close
 * await dispatcher.close();
 * ```
 */
export interface WebhookDispatcher {
  /** Stop looking at the queue, cut the attempts under way short; resolves once they are handed back. */
  close(): Promise<void>;
}

/**
 * How long to wait after the `attempts`-th failed attempt, in milliseconds.
 *
 * @example
 * ```ts
 * retryDelay(1, DEFAULTS.webhooks); // 1000
 * retryDelay(3, DEFAULTS.webhooks); // 4000
 * ```
 */
export function retryDelay(
  attempts: number,
  timing: Pick<DispatcherTiming, 'retryDelay' | 'maxRetryDelay'>,
): number {
  return Math.min(timing.retryDelay * 2 ** (attempts - 1), timing.maxRetryDelay);
}

const describe = (err: unknown, timeout: number): string => {
  const error = err as Error & { cause?: { code?: string; message?: string } };
  if (error.name === 'TimeoutError') return `timeout after ${timeout} ms`;
  return error.cause?.code ?? error.cause?.message ?? error.message ?? String(err);
};

/**
 * Start the loop (its timer is unref'd: it never keeps the process alive).
 *
 * @example
 * ```ts
 * const dispatcher = startWebhookDispatcher({ store, log, box, timing: { ...DEFAULTS.webhooks, pollInterval: 100 } });
 * ```
 */
export function startWebhookDispatcher(deps: {
  readonly store: Store;
  readonly log: Logger;
  readonly box: SecretBox;
  readonly timing?: DispatcherTiming | undefined;
}): WebhookDispatcher {
  const { store, log, box } = deps;
  const timing = deps.timing ?? DEFAULTS.webhooks;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const closing = new AbortController();

  /** A failed attempt: retried after the backoff, or given up after `maxAttempts`. */
  const failure = (
    delivery: WebhookDeliveryRecord,
    error: string,
    httpStatus: number | null,
  ): WebhookOutcome =>
    delivery.attempts >= timing.maxAttempts
      ? { status: 'failed', httpStatus, error }
      : {
          status: 'pending',
          httpStatus,
          error,
          retryAtMs: Date.now() + retryDelay(delivery.attempts, timing),
        };

  const post = async (
    delivery: WebhookDeliveryRecord,
    url: string,
    secret: string,
  ): Promise<WebhookOutcome> => {
    const failed = (error: string, httpStatus: number | null) => failure(delivery, error, httpStatus);
    try {
      const res = await fetch(url, {
        method: 'POST',
        redirect: 'manual',
        signal: AbortSignal.any([AbortSignal.timeout(timing.timeout), closing.signal]),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Gatehouse-Webhooks/1',
          'gatehouse-event-id': delivery.eventId,
          'gatehouse-event-type': delivery.eventType,
          [WEBHOOK_SIGNATURE_HEADER]: signWebhook({ secret, body: delivery.payload }),
        },
        body: delivery.payload,
      });
      await res.body?.cancel();
      if (res.ok) return { status: 'delivered', httpStatus: res.status, error: null };
      return failed(`HTTP ${res.status}`, res.status);
    } catch (err) {
      // Cut short by close(): back to the queue, due now, this attempt not counted.
      if (closing.signal.aborted)
        return {
          status: 'pending',
          httpStatus: null,
          error: 'issuer stopped',
          retryAtMs: Date.now(),
          attempts: delivery.attempts - 1,
        };
      return failed(describe(err, timing.timeout).slice(0, DEFAULTS.webhooks.maxErrorLength), null);
    }
  };

  const attempt = async (delivery: WebhookDeliveryRecord) => {
    const ids = { eventId: delivery.eventId, endpointId: delivery.endpointId, attempts: delivery.attempts };
    try {
      // A deleted endpoint takes its deliveries with it (foreign-key cascade): nothing to settle then.
      const endpoint = await store.webhooks.getEndpoint(delivery.endpointId);
      if (endpoint === undefined) return;
      // A secret sealed under another database's key (a restored backup without its settings) cannot
      // sign: a failed attempt like any other, so the delivery is eventually given up, not retried forever.
      const secret = await box.open(endpoint.secret, endpoint.id).catch(() => undefined);
      const outcome =
        secret === undefined
          ? failure(delivery, 'the signing secret cannot be opened with this database key', null)
          : await post(delivery, endpoint.url, secret);
      const settled = await store.webhooks.settle(delivery, outcome, epoch());
      const fields = { event: `webhook_${outcome.status}`, ...ids, httpStatus: outcome.httpStatus, settled };
      if (outcome.status === 'delivered') log.info(fields, 'webhook delivered');
      else log.warn({ ...fields, error: outcome.error }, 'webhook delivery failed');
    } catch (err) {
      log.error(
        { event: 'webhook_error', ...ids, err: { message: (err as Error).message } },
        'webhook error',
      );
    }
  };

  const tick = async () => {
    for (;;) {
      const now = Date.now();
      const due = await store.webhooks.claimDue(
        now,
        now + timing.timeout + timing.claimMargin,
        timing.batchSize,
      );
      await Promise.all(due.map(attempt));
      if (closed || due.length < timing.batchSize) return;
    }
  };

  const schedule = () => {
    if (closed) return;
    timer = setTimeout(() => {
      running = tick()
        .catch((err: unknown) =>
          log.warn({ event: 'webhook_poll_failed', err: { message: (err as Error).message } }),
        )
        .finally(() => {
          running = undefined;
          schedule();
        });
    }, timing.pollInterval);
    timer.unref();
  };
  schedule();

  return {
    async close() {
      closed = true;
      clearTimeout(timer);
      closing.abort();
      await running;
    },
  };
}
