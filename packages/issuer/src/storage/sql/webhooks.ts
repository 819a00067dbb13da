/**
 * Webhook endpoints, their subscriptions and the delivery queue. Deliveries are queued by the audit
 * trail (`audit-events.ts` runs `queueDeliveries` of `webhook-queue.ts` in the statement or transaction
 * that records the event) for the subscribed endpoints that are not disabled, claimed by one issuer process at a
 * time with one conditional update (`… WHERE claimed_until_ms <= now`, and `FOR UPDATE SKIP LOCKED` on
 * PostgreSQL so concurrent pollers pass over each other's rows instead of waiting), and settled only by
 * the process whose claim is still the row's (`… AND claimed_until_ms = <its claim>`).
 *
 * A claim takes at most `perEndpoint` deliveries of one endpoint, counting those already held (by any
 * process): the rows of each endpoint are numbered after its held ones (`ROW_NUMBER() OVER (PARTITION
 * BY endpoint_id)`), and only numbers up to the bound are claimed. On PostgreSQL, claims take a
 * transaction-scoped advisory lock first, so two processes never count the same held rows at once and
 * claim past the bound between them.
 *
 * @module
 */

import type { Executor } from '../executor.js';
import { json, num, type Row } from '../rows.js';
import type { NewAuditEvent, Page, PageRequest } from '../store.js';
import type { WebhookStore } from '../tables/webhooks.js';
import {
  isWebhookEventType,
  toWebhookDelivery,
  toWebhookEndpoint,
  type WebhookDeliveryRecord,
} from '../webhook-records.js';
import { changeWithEvent } from './audit-events.js';

/**
 * The claim (parameters: now, now, now, per endpoint, now, limit, claim until, now). `busy` counts the
 * deliveries each endpoint has held; `ranked` numbers each endpoint's due rows after them.
 */
const claimSql = (skipLocked: string) => `WITH busy AS (
    SELECT endpoint_id, COUNT(*) AS held FROM webhook_deliveries
    WHERE claimed_until_ms > ? GROUP BY endpoint_id),
  ranked AS (
    SELECT d.event_id, d.endpoint_id,
      ROW_NUMBER() OVER (PARTITION BY d.endpoint_id ORDER BY d.next_attempt_ms, d.created_at)
        + COALESCE(b.held, 0) AS slot
    FROM webhook_deliveries d
    JOIN webhook_endpoints e ON e.id = d.endpoint_id AND e.disabled_at IS NULL
    LEFT JOIN busy b ON b.endpoint_id = d.endpoint_id
    WHERE d.status = 'pending' AND d.next_attempt_ms <= ? AND d.claimed_until_ms <= ?),
  due AS MATERIALIZED (
    SELECT event_id, endpoint_id FROM webhook_deliveries
    WHERE (event_id, endpoint_id) IN (SELECT event_id, endpoint_id FROM ranked WHERE slot <= ?)
    AND status = 'pending' AND claimed_until_ms <= ?
    ORDER BY next_attempt_ms LIMIT ? ${skipLocked})
  UPDATE webhook_deliveries SET claimed_until_ms = ?, attempts = attempts + 1
  WHERE (event_id, endpoint_id) IN (SELECT event_id, endpoint_id FROM due)
  AND status = 'pending' AND claimed_until_ms <= ?
  RETURNING *`;

/**
 * Whether any delivery is due and unclaimed (parameters: now, now): a poll that finds none takes no
 * lock and opens no transaction — an idle issuer costs its database one indexed read per poll.
 */
const ANY_DUE = `SELECT 1 AS due FROM webhook_deliveries
  WHERE status = 'pending' AND next_attempt_ms <= ? AND claimed_until_ms <= ? LIMIT 1`;

/** PostgreSQL: the advisory lock claims take (the key as `LOCK_KEY` in the PostgreSQL driver builds it). */
const CLAIM_LOCK =
  "SELECT pg_advisory_xact_lock(hashtext(coalesce(current_schema(), '') || ':gatehouse:webhook-claims'))";

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
 * const due = await webhooks.claimDue(Date.now(), Date.now() + 30_000, 10, 4);
 * ```
 */
export function webhookStore(db: Executor): WebhookStore {
  const postgres = db.dialect.name === 'postgres';
  // The due rows are picked once (a materialized CTE): a subquery re-run per row would lock rows it
  // then does not claim, and other processes would skip them.
  const claim = claimSql(postgres ? 'FOR UPDATE SKIP LOCKED' : '');
  const endpoint = async (sql: string, params: readonly unknown[]) => {
    const row = await db.one(sql, params);
    return row === undefined ? undefined : toWebhookEndpoint(row);
  };
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
    getEndpoint: (id) => endpoint('SELECT * FROM webhook_endpoints WHERE id = ?', [id]),
    listEndpoints: (request) =>
      page(db, 'webhook_endpoints', [], `created_at, id ${db.dialect.binary}`, request, toWebhookEndpoint),
    deleteEndpoint: async (id) => (await db.run('DELETE FROM webhook_endpoints WHERE id = ?', [id])) > 0,
    // Assignments read the row as it was: the old secret moves to previous_secret.
    rotateSecret: (id, sealed, previousExpiresAt, now) =>
      endpoint(
        `UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_expires_at = ?, secret = ?,
           updated_at = ? WHERE id = ? RETURNING *`,
        [previousExpiresAt, sealed, now, id],
      ),
    noteFailure: async (id, now) => {
      const row = await db.one(
        `UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, ?) WHERE id = ?
         RETURNING failing_since`,
        [now, id],
      );
      return row === undefined ? undefined : num(row.failing_since);
    },
    noteSuccess: async (id) => {
      await db.run(
        'UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ? AND failing_since IS NOT NULL',
        [id],
      );
    },
    disableEndpoint: async (id, failingBefore, event, now) => {
      const row = await changeWithEvent(
        db,
        `UPDATE webhook_endpoints SET disabled_at = ?, updated_at = ?
         WHERE id = ? AND disabled_at IS NULL AND failing_since <= ? RETURNING *`,
        [now, now, id, failingBefore],
        event,
        now,
      );
      if (row === undefined) return undefined;
      // Held deliveries are settled by their holder (settle records a retry of them as failed).
      await db.run(
        `UPDATE webhook_deliveries SET status = 'failed', last_error = 'endpoint disabled'
         WHERE endpoint_id = ? AND status = 'pending' AND claimed_until_ms <= ?`,
        [id, now * 1000],
      );
      return toWebhookEndpoint(row);
    },
    enableEndpoint: (id, now) =>
      endpoint(
        `UPDATE webhook_endpoints SET disabled_at = NULL, failing_since = NULL, updated_at = ?
         WHERE id = ? RETURNING *`,
        [now, id],
      ),
    listDeliveries: (endpointId, request) =>
      page(
        db,
        'webhook_deliveries WHERE endpoint_id = ?',
        [endpointId],
        `created_at DESC, event_id ${db.dialect.binary} DESC`,
        request,
        toWebhookDelivery,
      ),
    claimDue: async (nowMs, claimUntilMs, limit, perEndpoint) => {
      if ((await db.one(ANY_DUE, [nowMs, nowMs])) === undefined) return [];
      const params = [nowMs, nowMs, nowMs, perEndpoint, nowMs, limit, claimUntilMs, nowMs];
      const rows = postgres
        ? await db.transaction(async (tx) => {
            await tx.one(CLAIM_LOCK);
            return tx.many(claim, params);
          })
        : await db.many(claim, params);
      return rows.map(toWebhookDelivery);
    },
    settle: async (delivery: WebhookDeliveryRecord, outcome, now) =>
      (await db.run(
        `UPDATE webhook_deliveries SET
           status = CASE WHEN CAST(? AS TEXT) = 'pending' AND EXISTS (SELECT 1 FROM webhook_endpoints e
             WHERE e.id = webhook_deliveries.endpoint_id AND e.disabled_at IS NOT NULL)
             THEN 'failed' ELSE CAST(? AS TEXT) END,
           last_status = ?, last_error = ?, last_attempt_at = ?,
           delivered_at = ?, next_attempt_ms = ?, attempts = ?, claimed_until_ms = 0
         WHERE event_id = ? AND endpoint_id = ? AND claimed_until_ms = ?`,
        [
          outcome.status,
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
