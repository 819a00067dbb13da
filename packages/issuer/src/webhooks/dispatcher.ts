/**
 * The delivery loop each issuer process runs: every `pollInterval` it claims the deliveries that are
 * due (`store.webhooks.claimDue`: a delivery is claimed by exactly one process, for the attempt's
 * timeout plus `claimMargin`; at most `concurrency` per endpoint held at once, across processes), and
 * starts each attempt without waiting for the others: an endpoint that never answers holds its own
 * few connections until their timeout, and every other endpoint's deliveries go on (catalogue F16).
 * A process has at most `maxConcurrent` attempts in flight.
 *
 * An attempt POSTs the event, signed with every live secret of the endpoint (`signature.ts`), under the
 * egress rules of `egress.ts` (F13–F15), and records the outcome: delivered on a 2xx answer; otherwise
 * retried after `retryDelay` × 2^(attempts − 1) (at most `maxRetryDelay`), and given up after
 * `maxAttempts`. An endpoint whose attempts have all failed for `disableAfter` seconds is disabled,
 * with the audit event `webhook.disabled`. Since the queue is in the database, a restart loses nothing:
 * a pending delivery is picked up by whichever process looks next; attempts under way when the issuer
 * closes are cut short and handed back to the queue, due at once (without counting against
 * `maxAttempts`); a graceful stop (`drain()`) first claims nothing more and lets them finish. Logs
 * name the event and endpoint ids, never the URL (it may carry credentials) or the secret.
 *
 * @module
 */
import type { Logger } from 'pino';
import { DEFAULTS } from '../config/defaults.js';
import { createAuditTrail } from '../internal/audit.js';
import { epoch } from '../internal/ids.js';
import type { Store, WebhookDeliveryRecord, WebhookEndpointRecord } from '../storage/store.js';
import type { WebhookOutcome } from '../storage/tables/webhooks.js';
import { type AttemptResult, postWebhook, type Resolver, systemResolver } from './egress.js';
import type { SecretBox } from './secret-box.js';
import { signWebhook, WEBHOOK_SIGNATURE_HEADER } from './signature.js';
import type { TargetPolicy } from './targets.js';

/**
 * The timing and bounds of the loop (`DEFAULTS.webhooks`, with the `webhooks` settings, unless given).
 *
 * @example
 * ```ts
 * const timing: DispatcherTiming = { ...DEFAULTS.webhooks, ...config.webhooks, pollInterval: 100 };
 * ```
 */
export type DispatcherTiming = {
  readonly [K in
    | 'timeout'
    | 'maxAttempts'
    | 'retryDelay'
    | 'maxRetryDelay'
    | 'pollInterval'
    | 'batchSize'
    | 'claimMargin'
    | 'concurrency'
    | 'maxConcurrent'
    | 'disableAfter'
    | 'maxResponseHeaderBytes']: number;
};

/**
 * A running delivery loop.
 *
 * @example
 * ```ts
 * const dispatcher = startWebhookDispatcher({ store, log, box: createSecretBox(store), policy });
 * // … on close
 * await dispatcher.close();
 * ```
 */
export interface WebhookDispatcher {
  /**
   * Stop claiming deliveries; resolves once the attempts under way have finished and been recorded (a
   * graceful stop: {@link close} afterwards hands back whatever is still under way).
   */
  drain(): Promise<void>;
  /** Stop looking at the queue, cut the attempts under way short; resolves once they are handed back. */
  close(): Promise<void>;
  /** Attempts under way now (claimed by this process and not settled yet). */
  readonly inFlight: number;
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

/**
 * A settled attempt, as {@link DispatcherDeps.onSettled} sees it (the issuer's metrics): the delivery's
 * new status, when its event was created (epoch seconds) and when it settled (epoch milliseconds).
 *
 * @example
 * ```ts
 * const onSettled = ({ status }: WebhookSettled) => status === 'failed' && alert();
 * ```
 */
export interface WebhookSettled {
  readonly status: WebhookOutcome['status'];
  readonly createdAt: number;
  readonly nowMs: number;
}

/**
 * What the loop needs.
 *
 * @example
 * ```ts
 * const deps: DispatcherDeps = { store, log, box: createSecretBox(store), policy: createTargetPolicy({ baseUrl, allowedPrivateTargets: [] }) };
 * ```
 */
export interface DispatcherDeps {
  readonly store: Store;
  readonly log: Logger;
  readonly box: SecretBox;
  /** Which targets may be reached (`targets.ts`). */
  readonly policy: TargetPolicy;
  readonly timing?: DispatcherTiming | undefined;
  /** Resolves endpoint host names (default: the system resolver). */
  readonly resolve?: Resolver | undefined;
  /** Called for each attempt this process settled (not for one handed back on close). */
  readonly onSettled?: ((settled: WebhookSettled) => void) | undefined;
}

/**
 * Start the loop (its timer is unref'd: it never keeps the process alive).
 *
 * @example
 * ```ts
 * const dispatcher = startWebhookDispatcher({ store, log, box, policy, timing: { ...DEFAULTS.webhooks, pollInterval: 100 } });
 * ```
 */
export function startWebhookDispatcher(deps: DispatcherDeps): WebhookDispatcher {
  const { store, log, box, policy } = deps;
  const timing = deps.timing ?? DEFAULTS.webhooks;
  const resolve = deps.resolve ?? systemResolver;
  const audit = createAuditTrail(store, log, epoch);
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let polling: Promise<void> | undefined;
  const inFlight = new Set<Promise<void>>();
  const stop = new AbortController();

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

  /** The endpoint's live secrets, newest first; `undefined` when one cannot be opened with this database's key. */
  const secrets = async (endpoint: WebhookEndpointRecord): Promise<string[] | undefined> => {
    const sealed = [endpoint.secret];
    if (endpoint.previousSecret !== null && (endpoint.previousSecretExpiresAt ?? 0) > epoch())
      sealed.push(endpoint.previousSecret);
    try {
      return await Promise.all(sealed.map((secret) => box.open(secret, endpoint.id)));
    } catch {
      return undefined;
    }
  };

  const post = (delivery: WebhookDeliveryRecord, url: string, secret: string[]): Promise<AttemptResult> =>
    postWebhook({
      url,
      body: delivery.payload,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Gatehouse-Webhooks/1',
        'gatehouse-event-id': delivery.eventId,
        'gatehouse-event-type': delivery.eventType,
        [WEBHOOK_SIGNATURE_HEADER]: signWebhook({ secret, body: delivery.payload }),
      },
      policy,
      resolve,
      timeout: timing.timeout,
      stop: stop.signal,
      maxResponseHeaderBytes: timing.maxResponseHeaderBytes,
    });

  const outcomeOf = (delivery: WebhookDeliveryRecord, result: AttemptResult): WebhookOutcome => {
    if (result.outcome === 'delivered')
      return { status: 'delivered', httpStatus: result.status, error: null };
    // Cut short by close(): back to the queue, due now, this attempt not counted.
    if (result.outcome === 'stopped')
      return {
        status: 'pending',
        httpStatus: null,
        error: 'issuer stopped',
        retryAtMs: Date.now(),
        attempts: delivery.attempts - 1,
      };
    return failure(delivery, result.cause, result.status);
  };

  /** Keep the endpoint's health: clear it on success; on failure, disable it once failing for too long. */
  const track = async (endpoint: WebhookEndpointRecord, outcome: WebhookOutcome) => {
    if (outcome.status === 'delivered') {
      if (endpoint.failingSince !== null) await store.webhooks.noteSuccess(endpoint.id);
      return;
    }
    const now = epoch();
    const since = await store.webhooks.noteFailure(endpoint.id, now);
    if (since === undefined || now - since < timing.disableAfter) return;
    const event = audit.prepare({
      type: 'webhook.disabled',
      applicationId: null,
      userId: null,
      actorId: null,
      reason: 'endpoint_failing',
      details: { webhookId: endpoint.id, failingSince: new Date(since * 1000).toISOString() },
    });
    const disabled = await store.webhooks.disableEndpoint(endpoint.id, now - timing.disableAfter, event, now);
    if (disabled === undefined) return;
    audit.stored(event);
    log.warn(
      { event: 'webhook_endpoint_disabled', endpointId: endpoint.id, failingSince: since },
      'webhook endpoint disabled',
    );
  };

  const attempt = async (delivery: WebhookDeliveryRecord) => {
    const ids = { eventId: delivery.eventId, endpointId: delivery.endpointId, attempts: delivery.attempts };
    try {
      // A deleted endpoint takes its deliveries with it (foreign-key cascade): nothing to settle then.
      const endpoint = await store.webhooks.getEndpoint(delivery.endpointId);
      if (endpoint === undefined) return;
      // A secret sealed under another database's key (a restored backup without its settings) cannot
      // sign: a failed attempt like any other, so the delivery is eventually given up, not retried forever.
      const secret = await secrets(endpoint);
      const result = secret === undefined ? undefined : await post(delivery, endpoint.url, secret);
      const outcome =
        result === undefined
          ? failure(delivery, 'the signing secret cannot be opened with this database key', null)
          : outcomeOf(delivery, result);
      const settled = await store.webhooks.settle(delivery, outcome, epoch());
      if (settled && result?.outcome !== 'stopped') {
        deps.onSettled?.({ status: outcome.status, createdAt: delivery.createdAt, nowMs: Date.now() });
        await track(endpoint, outcome);
      }
      const fields = { event: `webhook_${outcome.status}`, ...ids, httpStatus: outcome.httpStatus, settled };
      if (outcome.status === 'delivered') log.info(fields, 'webhook delivered');
      else
        log.warn(
          {
            ...fields,
            error: outcome.error,
            errorCode: result?.outcome === 'failed' ? result.code : undefined,
          },
          'webhook delivery failed',
        );
    } catch (err) {
      log.error(
        { event: 'webhook_error', ...ids, err: { message: (err as Error).message } },
        'webhook error',
      );
    }
  };

  /** Claim what is due, as long as there is room, and start each attempt; never waits for one. */
  const poll = async () => {
    for (;;) {
      const room = Math.min(timing.batchSize, timing.maxConcurrent - inFlight.size);
      if (closed || room <= 0) return;
      const now = Date.now();
      const due = await store.webhooks.claimDue(
        now,
        now + timing.timeout + timing.claimMargin,
        room,
        timing.concurrency,
      );
      for (const delivery of due) {
        const running: Promise<void> = attempt(delivery).finally(() => inFlight.delete(running));
        inFlight.add(running);
      }
      if (due.length < room) return;
    }
  };

  const schedule = () => {
    if (closed) return;
    timer = setTimeout(() => {
      polling = poll()
        .catch((err: unknown) =>
          log.warn({ event: 'webhook_poll_failed', err: { message: (err as Error).message } }),
        )
        .finally(() => {
          polling = undefined;
          schedule();
        });
    }, timing.pollInterval);
    timer.unref();
  };
  schedule();

  /** Claim nothing more; resolves once the current claim (if any) has returned and its attempts started. */
  const stopClaiming = async () => {
    closed = true;
    clearTimeout(timer);
    await polling;
  };

  return {
    async drain() {
      await stopClaiming();
      // Attempts started meanwhile are in the set by now; each settles its own delivery.
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
    async close() {
      stop.abort();
      await stopClaiming();
      await Promise.all([...inFlight]);
    },
    get inFlight() {
      return inFlight.size;
    },
  };
}
