/**
 * The audit events table. Part of the `Store` interface (`../store.ts`); see there for the rules every
 * driver follows.
 *
 * @module
 */
import type { AuditEventFilter, AuditEventRecord, NewAuditEvent } from '../audit-records.js';
import type { Page, PageRequest } from '../records.js';

/** The audit trail of impersonation. */
export interface AuditEventStore {
  record(event: NewAuditEvent, now: number): Promise<AuditEventRecord>;
  /** Matching events, newest first. */
  list(filter: AuditEventFilter, page: PageRequest): Promise<Page<AuditEventRecord>>;
}
