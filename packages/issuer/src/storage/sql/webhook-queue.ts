/**
 * The webhook delivery queue's one write path: the statement that queues an audit event for every
 * enabled endpoint subscribed to its type, and the JSON body those endpoints receive. The audit trail
 * (`audit-events.ts`) runs it in the statement or transaction that records the event; nothing else
 * queues deliveries. Kept apart from the webhook store (`webhooks.ts`), which records events of its
 * own through the audit trail, so that neither module imports the other back.
 *
 * @module
 */
import { json } from '../rows.js';
import type { NewAuditEvent } from '../store.js';
import { isWebhookEventType } from '../webhook-records.js';

/**
 * One delivery row per enabled endpoint subscribed to the event's type (parameters: see
 * {@link queueDeliveries}).
 */
const QUEUE = `INSERT INTO webhook_deliveries (event_id, endpoint_id, event_type, payload, next_attempt_ms, created_at)
  SELECT CAST(? AS TEXT), s.endpoint_id, s.event_type, CAST(? AS TEXT), CAST(? AS BIGINT), CAST(? AS BIGINT)
  FROM webhook_subscriptions s JOIN webhook_endpoints e ON e.id = s.endpoint_id AND e.disabled_at IS NULL
  WHERE s.event_type = CAST(? AS TEXT)`;

/**
 * The JSON body every receiver of `event` gets: the audit event as the Management API shows it, with
 * the trace id of the request that recorded it (`null` when untraced). Audit events never hold a
 * token, secret or PAT value, so neither does a webhook.
 *
 * @example
 * ```ts
 * webhookPayload({ id: 'evt_1', type: 'token_exchange.failed', reason: 'subject_token_consumed' }, now, null);
 * ```
 */
export function webhookPayload(event: NewAuditEvent, now: number, traceId: string | null): string {
  return json({
    id: event.id,
    type: event.type,
    createdAt: new Date(now * 1000).toISOString(),
    applicationId: event.applicationId ?? null,
    userId: event.userId ?? null,
    actorId: event.actorId ?? null,
    reason: event.reason ?? null,
    details: event.details ?? {},
    traceId,
  });
}

/**
 * The statement that queues `event` (recorded in the trace `traceId`, or none) for its subscribers and
 * its parameters, or `undefined` when no endpoint can subscribe to its type (sign-in events). `guard`
 * is appended to the `WHERE` (a CTE's `EXISTS`).
 *
 * @example
 * ```ts
 * const queued = queueDeliveries(event, now, activeTraceId());
 * if (queued) await tx.run(queued.sql, queued.params);
 * ```
 */
export function queueDeliveries(
  event: NewAuditEvent,
  now: number,
  traceId: string | null,
  guard = '',
): { readonly sql: string; readonly params: readonly unknown[] } | undefined {
  if (!isWebhookEventType(event.type)) return undefined;
  return {
    sql: `${QUEUE}${guard}`,
    params: [event.id, webhookPayload(event, now, traceId), now * 1000, now, event.type],
  };
}
