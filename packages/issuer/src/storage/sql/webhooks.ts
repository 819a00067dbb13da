/**
 * Webhook endpoints, their subscriptions and the delivery queue. Deliveries are queued by the audit
 * trail (`audit-events.ts` runs {@link queueDeliveries} in the statement or transaction that records
 * the event), claimed by one issuer process at a time with one conditional update (`… WHERE
 * claimed_until_ms <= now`, and `FOR UPDATE SKIP LOCKED` on PostgreSQL so concurrent pollers pass over
 * each other's rows instead of waiting), and settled only by the process whose claim is still the
 * row's (`… AND claimed_until_ms = <its claim>`).
 *
 * @module
 */
import type { Executor } from '../executor.js';
import { json, num, type Row } from '../rows.js';
import type { NewAuditEvent, Page, PageRequest, WebhookStore } from '../store.js';
import {
  isWebhookEventType,
  toWebhookDelivery,
  toWebhookEndpoint,
  type WebhookDeliveryRecord,
} from '../webhook-records.js';

/** One delivery row per endpoint subscribed to the event's type (parameters: see {@link queueDeliveries}). */
const QUEUE = `INSERT INTO webhook_deliveries (event_id, endpoint_id, event_type, payload, next_attempt_ms, created_at)
  SELECT CAST(? AS TEXT), endpoint_id, event_type, CAST(? AS TEXT), CAST(? AS BIGINT), CAST(? AS BIGINT)
  FROM webhook_subscriptions WHERE event_type = CAST(? AS TEXT)`;

/**
 * The JSON body every receiver of `event` gets: the audit event as the Management API shows it. Audit
 * events never hold a token, secret or PAT value, so neither does a webhook.
 *
 * @example
 * ```ts
 * webhookPayload({ id: 'evt_1', type: 'token_exchange.failed', reason: 'subject_token_consumed' }, now);
 * ```
 */
export function webhookPayload(event: NewAuditEvent, now: number): string {
  return json({
    id: event.id,
    type: event.type,
    createdAt: new Date(now * 1000).toISOString(),
    applicationId: event.applicationId ?? null,
    userId: event.userId ?? null,
    actorId: event.actorId ?? null,
    reason: event.reason ?? null,
    details: event.details ?? {},
  });
}

/**
 * The statement that queues `event` for its subscribers and its parameters, or `undefined` when no
 * endpoint can subscribe to its type (sign-in events). `guard` is appended to the `WHERE` (a CTE's
 * `EXISTS`).
 *
 * @example
 * ```ts
 * const queued = queueDeliveries(event, now);
 * if (queued) await tx.run(queued.sql, queued.params);
 * ```
 */
export function queueDeliveries(
  event: NewAuditEvent,
  now: number,
  guard = '',
): { readonly sql: string; readonly params: readonly unknown[] } | undefined {
  if (!isWebhookEventType(event.type)) return undefined;
  return {
    sql: `${QUEUE}${guard}`,
    params: [event.id, webhookPayload(event, now), now * 1000, now, event.type],
  };
}

const page = async <T>(
  db: Executor,
  from: string,
  params: readonly unknown[],
  order: string,
  request: PageRequest,
  map: (row: Row) => T,
): Promise<Page<T>> => {
  const total = num((await db.one(`SELECT COUNT(*) AS n FROM ${from}`, params))!.n);
  const rows = await db.many(`SELECT * FROM ${from} ORDER BY ${order} LIMIT ? OFFSET ?`, [
    ...params,
    request.pageSize,
    (request.page - 1) * request.pageSize,
  ]);
  return { items: rows.map(map), page: request.page, pageSize: request.pageSize, total };
};

/**
 * The {@link WebhookStore} on `db`.
 *
 * @example
 * ```ts
 * const webhooks = webhookStore(db);
 * const due = await webhooks.claimDue(Date.now(), Date.now() + 30_000, 10);
 * ```
 */
export function webhookStore(db: Executor): WebhookStore {
  const skipLocked = db.dialect.name === 'postgres' ? 'FOR UPDATE SKIP LOCKED' : '';
  // The due rows are picked once (a materialized CTE): a subquery re-run per row would lock rows it
  // then does not claim, and other processes would skip them.
  const claim = `WITH due AS MATERIALIZED (
      SELECT event_id, endpoint_id FROM webhook_deliveries
      WHERE status = 'pending' AND next_attempt_ms <= ? AND claimed_until_ms <= ?
      ORDER BY next_attempt_ms LIMIT ? ${skipLocked})
    UPDATE webhook_deliveries SET claimed_until_ms = ?, attempts = attempts + 1
    WHERE (event_id, endpoint_id) IN (SELECT event_id, endpoint_id FROM due)
    AND status = 'pending' AND claimed_until_ms <= ?
    RETURNING *`;
  return {
    createEndpoint: (endpoint, now) =>
      db.transaction(async (tx) => {
        const row = await tx.one(
          `INSERT INTO webhook_endpoints (id, url, description, events, secret, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *`,
          [endpoint.id, endpoint.url, endpoint.description, json(endpoint.events), endpoint.secret, now, now],
        );
        for (const type of endpoint.events)
          await tx.run('INSERT INTO webhook_subscriptions (event_type, endpoint_id) VALUES (?, ?)', [
            type,
            endpoint.id,
          ]);
        return toWebhookEndpoint(row!);
      }),
    getEndpoint: async (id) => {
      const row = await db.one('SELECT * FROM webhook_endpoints WHERE id = ?', [id]);
      return row === undefined ? undefined : toWebhookEndpoint(row);
    },
    listEndpoints: (request) =>
      page(db, 'webhook_endpoints', [], `created_at, id ${db.dialect.binary}`, request, toWebhookEndpoint),
    deleteEndpoint: async (id) => (await db.run('DELETE FROM webhook_endpoints WHERE id = ?', [id])) > 0,
    listDeliveries: (endpointId, request) =>
      page(
        db,
        'webhook_deliveries WHERE endpoint_id = ?',
        [endpointId],
        `created_at DESC, event_id ${db.dialect.binary} DESC`,
        request,
        toWebhookDelivery,
      ),
    claimDue: async (nowMs, claimUntilMs, limit) =>
      (await db.many(claim, [nowMs, nowMs, limit, claimUntilMs, nowMs])).map(toWebhookDelivery),
    settle: async (delivery: WebhookDeliveryRecord, outcome, now) =>
      (await db.run(
        `UPDATE webhook_deliveries SET status = ?, last_status = ?, last_error = ?, last_attempt_at = ?,
           delivered_at = ?, next_attempt_ms = ?, attempts = ?, claimed_until_ms = 0
         WHERE event_id = ? AND endpoint_id = ? AND claimed_until_ms = ?`,
        [
          outcome.status,
          outcome.httpStatus,
          outcome.error,
          now,
          outcome.status === 'delivered' ? now : null,
          outcome.retryAtMs ?? delivery.nextAttemptMs,
          outcome.attempts ?? delivery.attempts,
          delivery.eventId,
          delivery.endpointId,
          delivery.claimedUntilMs,
        ],
      )) > 0,
    purgeSettled: (before) =>
      db.run(`DELETE FROM webhook_deliveries WHERE status <> 'pending' AND created_at < ?`, [before]),
  };
}
