/**
 * The audit trail: recording an event, listing events newest first, and recording an event together
 * with the change it describes (a consumed subject token, a used personal access token) in one
 * statement on PostgreSQL (`WITH changed AS (UPDATE … RETURNING *) INSERT …`), or one transaction on
 * SQLite, so the event exists exactly when the change happened. An event webhooks can subscribe to
 * queues its deliveries in that same statement or transaction (`webhooks.ts`).
 *
 * @module
 */

import { activeTraceId } from '../../tracing/log-fields.js';
import type { Executor } from '../executor.js';
import { json, num, type Row, toAuditEvent } from '../rows.js';
import type { NewAuditEvent } from '../store.js';
import type { AuditEventStore } from '../tables/audit-events.js';
import { queueDeliveries } from './webhook-queue.js';

/** Columns of an event and their types (the casts let PostgreSQL type the `SELECT`'s parameters). */
const EVENT_COLUMNS = [
  ['id', 'TEXT'],
  ['type', 'TEXT'],
  ['created_at', 'BIGINT'],
  ['application_id', 'TEXT'],
  ['user_id', 'TEXT'],
  ['actor_id', 'TEXT'],
  ['reason', 'TEXT'],
  ['details', 'TEXT'],
  ['trace_id', 'TEXT'],
] as const;

/** `INSERT INTO audit_events … SELECT …`: one event from its parameters, optionally `FROM` a CTE. */
const INSERT_EVENT = `INSERT INTO audit_events (${EVENT_COLUMNS.map(([column]) => column).join(', ')})
  SELECT ${EVENT_COLUMNS.map(([, type]) => `CAST(? AS ${type})`).join(', ')}`;

const eventParams = (event: NewAuditEvent, now: number, traceId: string | null): unknown[] => [
  event.id,
  event.type,
  now,
  event.applicationId ?? null,
  event.userId ?? null,
  event.actorId ?? null,
  event.reason ?? null,
  json(event.details ?? {}),
  traceId,
];

/** Record the event (in trace `traceId`) and queue its deliveries, in transaction `tx` (SQLite). */
async function recordIn(tx: Executor, event: NewAuditEvent, traceId: string | null, now: number) {
  const row = await tx.one(`${INSERT_EVENT} RETURNING *`, eventParams(event, now, traceId));
  const queued = queueDeliveries(event, now, traceId);
  if (queued !== undefined) await tx.run(queued.sql, queued.params);
  return row!;
}

/**
 * Record `event` and queue its webhook deliveries with the statements of transaction `tx`, for a store
 * method that records an event beside a change of several statements (a key rotation).
 *
 * @example
 * ```ts
 * await db.transaction(async (tx) => {
 *   await tx.run('UPDATE signing_keys SET status = ? WHERE kid = ?', ['retired', kid]);
 *   await recordEvent(tx, event, now);
 * });
 * ```
 */
export async function recordEvent(tx: Executor, event: NewAuditEvent, now: number): Promise<void> {
  await recordIn(tx, event, activeTraceId(), now);
}

/**
 * A further `INSERT … SELECT …` (no `FROM`) that belongs with a change: run with it, only when the
 * change returned a row.
 *
 * @example
 * ```ts
 * const also: AlsoInsert = { sql: 'INSERT INTO t (a) SELECT CAST(? AS TEXT)', params: ['x'] };
 * ```
 */
export interface AlsoInsert {
  readonly sql: string;
  readonly params: readonly unknown[];
}

/**
 * Run `change` (a statement ending in `RETURNING *`) and, when it returned a row, record `event` in
 * the same statement (PostgreSQL) or transaction (SQLite), and run `also` there too. Resolves to the
 * changed row.
 *
 * @example
 * ```ts
 * const row = await changeWithEvent(db, 'UPDATE personal_access_tokens SET last_used_at = ? WHERE id = ? RETURNING *', [now, id], event, now);
 * ```
 */
export async function changeWithEvent(
  db: Executor,
  change: string,
  params: readonly unknown[],
  event: NewAuditEvent | undefined,
  now: number,
  also?: AlsoInsert,
): Promise<Row | undefined> {
  if (event === undefined) return db.one(change, params);
  // The request's trace, when it is traced (tracing/log-fields.ts): stored with the event, sent with its
  // webhook deliveries.
  const traceId = activeTraceId();
  if (db.dialect.writableCte) {
    const queued = queueDeliveries(event, now, traceId, ' AND EXISTS (SELECT 1 FROM changed)');
    const extra = also === undefined ? '' : `, also AS (${also.sql} FROM changed)`;
    return db.one(
      `WITH changed AS (${change}), recorded AS (${INSERT_EVENT} FROM changed)${extra}${queued ? `, queued AS (${queued.sql})` : ''}
       SELECT * FROM changed`,
      [...params, ...eventParams(event, now, traceId), ...(also?.params ?? []), ...(queued?.params ?? [])],
    );
  }
  return db.transaction(async (tx) => {
    const row = await tx.one(change, params);
    if (row !== undefined) await recordIn(tx, event, traceId, now);
    if (row !== undefined && also !== undefined) await tx.run(also.sql, also.params);
    return row;
  });
}

/**
 * The {@link AuditEventStore} on `db`.
 *
 * @example
 * ```ts
 * const audit = auditEventStore(db);
 * const { items } = await audit.list({ actorId: 'usr_9' }, { page: 1, pageSize: 20 });
 * ```
 */
export function auditEventStore(db: Executor): AuditEventStore {
  return {
    record: async (event, now) => {
      const traceId = activeTraceId();
      const values = eventParams(event, now, traceId);
      const queued = queueDeliveries(event, now, traceId);
      if (queued === undefined) return toAuditEvent((await db.one(`${INSERT_EVENT} RETURNING *`, values))!);
      if (!db.dialect.writableCte)
        return toAuditEvent(await db.transaction((tx) => recordIn(tx, event, traceId, now)));
      const row = await db.one(
        `WITH recorded AS (${INSERT_EVENT} RETURNING *), queued AS (${queued.sql}) SELECT * FROM recorded`,
        [...values, ...queued.params],
      );
      return toAuditEvent(row!);
    },
    list: async (filter, page) => {
      const conditions: string[] = [];
      const params: unknown[] = [];
      const where = (condition: string, value: unknown) => {
        if (value === undefined) return;
        conditions.push(condition);
        params.push(value);
      };
      if (typeof filter.type === 'string') where('type = ?', filter.type);
      else if (filter.type !== undefined) where(`type IN ${db.dialect.jsonTexts}`, json(filter.type));
      where('user_id = ?', filter.userId);
      where('actor_id = ?', filter.actorId);
      where('application_id = ?', filter.applicationId);
      where('created_at >= ?', filter.since);
      where('created_at <= ?', filter.until);
      const clause = conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`;
      const total = num((await db.one(`SELECT COUNT(*) AS n FROM audit_events ${clause}`, params))!.n);
      const rows = await db.many(
        `SELECT * FROM audit_events ${clause} ORDER BY created_at DESC, ${db.dialect.insertionOrder} DESC
         LIMIT ? OFFSET ?`,
        [...params, page.pageSize, (page.page - 1) * page.pageSize],
      );
      return { items: rows.map(toAuditEvent), page: page.page, pageSize: page.pageSize, total };
    },
  };
}
