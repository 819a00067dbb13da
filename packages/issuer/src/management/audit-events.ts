/**
 * `GET /api/audit-events`: the audit trail of impersonation (subject-token creation, every token
 * exchange with its outcome and reason) and of personal access tokens, newest first, filtered by
 * type, user, actor, application and time.
 *
 * @module
 */
import type { AuditEventRecord } from '../storage/store.js';
import { defineRoute, iso, type ManagementDeps, type RouteDef } from './router.js';

/** API view of an audit event. */
export function presentAuditEvent(event: AuditEventRecord) {
  return {
    id: event.id,
    type: event.type,
    createdAt: iso(event.createdAt),
    applicationId: event.applicationId,
    userId: event.userId,
    actorId: event.actorId,
    reason: event.reason,
    details: event.details,
  };
}

const seconds = (value: string | undefined): number | undefined =>
  value === undefined ? undefined : Math.floor(Date.parse(value) / 1000);

/** The audit routes. */
export function auditRoutes(deps: ManagementDeps): RouteDef[] {
  const { store, schemas } = deps;
  return [
    defineRoute({
      method: 'GET',
      path: '/audit-events',
      summary: 'List audit events',
      tag: 'Audit',
      scopes: ['audit:read'],
      query: schemas.auditQuery,
      success: {
        status: 200,
        schema: schemas.auditEventsPage,
        description: 'A page of events, newest first',
      },
      handler: async ({ query }) => {
        const { page, pageSize, since, until, ...filters } = query;
        const result = await store.auditEvents.list(
          { ...filters, since: seconds(since), until: seconds(until) },
          { page, pageSize },
        );
        return { status: 200, body: { ...result, items: result.items.map(presentAuditEvent) } };
      },
    }),
  ];
}
