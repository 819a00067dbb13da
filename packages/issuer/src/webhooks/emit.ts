/**
 * The hook other issuer code calls to send an event to the webhook endpoints: it records the event in
 * the audit trail, and the store queues one delivery per subscribed endpoint in the same statement or
 * transaction (`storage/sql/audit-events.ts`). Recording an event of a webhook type with
 * `audit.record(…)` directly does exactly the same; there is never a second delivery of one event.
 *
 * @module
 */
import type { AuditTrail } from '../internal/audit.js';
import type { AuditEventRecord, NewAuditEvent, WebhookEventType } from '../storage/store.js';

/** An event for the webhooks: an audit event of one of the `WEBHOOK_EVENT_TYPES` (the id is generated). */
export type WebhookEmission = Omit<NewAuditEvent, 'id' | 'type'> & { readonly type: WebhookEventType };

/**
 * Record `event` and queue its deliveries; resolves to the audit record (its id is the webhook event id).
 *
 * @example
 * ```ts
 * await emit(deps.audit, {
 *   type: 'impersonation.ended',
 *   applicationId: auth.clientId ?? null,
 *   userId,
 *   actorId,
 *   details: { subjectTokenId, endedBy: auth.sub },
 * });
 * ```
 */
export function emit(audit: AuditTrail, event: WebhookEmission): Promise<AuditEventRecord> {
  return audit.record(event);
}
