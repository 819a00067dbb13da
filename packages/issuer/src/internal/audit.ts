/**
 * The audit trail: every subject-token creation, every token exchange (success or failure, with a
 * reason) and every personal-access-token creation and revocation becomes a row in the store and a
 * log line. Neither ever holds a token value: only ids, the resource, scopes and the context.
 *
 * @module
 */
import type { Logger } from 'pino';
import type { AuditEventRecord, NewAuditEvent, Store } from '../storage/store.js';
import { newId } from './ids.js';

/** Records audit events. */
export interface AuditTrail {
  /** Store the event (the id is generated) and log its ids. */
  record(event: Omit<NewAuditEvent, 'id'>): Promise<AuditEventRecord>;
}

/** Build the audit trail on a store. */
export function createAuditTrail(store: Store, log: Logger, now: () => number): AuditTrail {
  return {
    async record(event) {
      const stored = await store.auditEvents.record({ ...event, id: newId('auditEvent') }, now());
      log.info(
        {
          event: 'audit',
          type: stored.type,
          auditId: stored.id,
          applicationId: stored.applicationId,
          userId: stored.userId,
          actorId: stored.actorId,
          reason: stored.reason,
        },
        stored.type,
      );
      return stored;
    },
  };
}
