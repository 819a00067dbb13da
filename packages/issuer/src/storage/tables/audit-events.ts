/**
 * The audit events table. Part of the `Store` interface (`../store.ts`); see there for the rules every
 * driver follows.
 *
 * @module
 */
import type { AuditEventFilter, AuditEventRecord, NewAuditEvent, Page, PageRequest } from '../records.js';

/**
 * An audit event as stored: with the trace id of the request that recorded it.
 *
 * @example
 * ```ts
 * const event: StoredAuditEvent = await store.auditEvents.record(audit.prepare(input), now);
 * event.traceId; // '4bf92f3577b34da6a3ce929d0e0e4736', or null when the request was not traced
 * ```
 */
export interface StoredAuditEvent extends AuditEventRecord {
  /** The W3C trace id (32 hex digits) of the request that recorded it, when that request was traced. */
  readonly traceId: string | null;
}

/** The audit trail of impersonation. */
export interface AuditEventStore {
  record(event: NewAuditEvent, now: number): Promise<StoredAuditEvent>;
  /** Matching events, newest first. */
  list(filter: AuditEventFilter, page: PageRequest): Promise<Page<StoredAuditEvent>>;
}
