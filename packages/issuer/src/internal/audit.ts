/**
 * The audit trail: every subject-token creation, every token exchange (success or failure, with a
 * reason) and every personal-access-token creation and revocation becomes a row in the store and a
 * log line. Neither ever holds a token value: only ids, the resource, scopes and the context.
 *
 * @module
 */
import type { Logger } from 'pino';
import type { AuditEventRecord, NewAuditEvent, Store } from '../storage/store.js';
import { traceFields } from '../tracing/log-fields.js';
import { newId } from './ids.js';

/**
 * Records audit events.
 *
 * @example
 * ```ts
 * await audit.record({ type: 'subject_token.created', applicationId, userId, details: { subjectTokenId } });
 * ```
 */
export interface AuditTrail {
  /** Store the event (the id is generated) and log its ids. */
  record(event: Omit<NewAuditEvent, 'id'>): Promise<AuditEventRecord>;
  /**
   * The event with its id, for a store method that records it together with the change it describes
   * (`subjectTokens.consume`, `personalAccessTokens.touch`); call {@link AuditTrail.stored} once it is.
   */
  prepare(event: Omit<NewAuditEvent, 'id'>): NewAuditEvent;
  /** Log an event that a store method recorded. */
  stored(event: NewAuditEvent): void;
}

/**
 * Build the audit trail on a store.
 *
 * @example
 * ```ts
 * const audit = createAuditTrail(store, log, epoch);
 * ```
 */
export function createAuditTrail(store: Store, log: Logger, now: () => number): AuditTrail {
  const prepare = (event: Omit<NewAuditEvent, 'id'>): NewAuditEvent => ({
    ...event,
    id: newId('auditEvent'),
  });
  const stored = (event: NewAuditEvent) =>
    log.info(
      {
        event: 'audit',
        type: event.type,
        auditId: event.id,
        applicationId: event.applicationId ?? null,
        userId: event.userId ?? null,
        actorId: event.actorId ?? null,
        reason: event.reason ?? null,
        ...traceFields(),
      },
      event.type,
    );
  return {
    async record(event) {
      const record = await store.auditEvents.record(prepare(event), now());
      stored(record);
      return record;
    },
    prepare,
    stored,
  };
}
