/**
 * `GET /api/audit-events`: the audit trail of impersonation (subject-token creation, every token
 * exchange with its outcome and reason) and of personal access tokens, newest first, filtered by
 * type, user, actor, application and time.
 *
 * @module
 */
import { z } from 'zod';
import { AUDIT_EVENT_TYPES, type AuditEventRecord } from '../storage/store.js';
import { id, isoInput, isoTime, page, pageQuery, type SharedSchemas } from './primitives.js';
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
    traceId: event.traceId,
  };
}

const seconds = (value: string | undefined): number | undefined =>
  value === undefined ? undefined : Math.floor(Date.parse(value) / 1000);

/**
 * The query and response schemas of `/api/audit-events`.
 *
 * @example
 * ```ts
 * const schemas = buildAuditSchemas(buildSharedSchemas());
 * ```
 */
export function buildAuditSchemas(shared: SharedSchemas) {
  const auditEvent = z
    .object({
      id,
      type: z.enum(AUDIT_EVENT_TYPES),
      createdAt: isoTime,
      applicationId: z.string().nullable(),
      userId: z.string().nullable(),
      actorId: z.string().nullable(),
      reason: z.string().nullable(),
      details: z.record(z.string(), z.unknown()),
      traceId: z.string().nullable().meta({
        description:
          'The W3C trace id of the request that recorded the event, when it was traced (OpenTelemetry); its log line carries the same trace_id',
      }),
    })
    .register(shared.responses, { id: 'AuditEvent' });
  return {
    ...shared,
    auditEvent,
    auditEventsPage: page(auditEvent, 'AuditEventPage', shared),
    auditQuery: pageQuery.extend({
      type: z
        .string()
        .max(4_096)
        .transform((value) => [...new Set(value.split(','))])
        .pipe(z.array(z.enum(AUDIT_EVENT_TYPES)).min(1).max(AUDIT_EVENT_TYPES.length))
        .optional()
        .meta({
          description:
            'Events of this type, or of any of several (comma-separated, e.g. user.created,user.deleted)',
        }),
      userId: id.optional(),
      actorId: id.optional(),
      applicationId: id.optional(),
      since: isoInput.optional(),
      until: isoInput.optional(),
    }),
  };
}

/** The audit routes. */
export function auditRoutes(deps: ManagementDeps): RouteDef[] {
  const { store } = deps;
  const schemas = buildAuditSchemas(deps.schemas);
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
        const { page, pageSize, since, until, type, ...filters } = query;
        const result = await store.auditEvents.list(
          {
            ...filters,
            type: type === undefined || type.length > 1 ? type : type[0],
            since: seconds(since),
            until: seconds(until),
          },
          { page, pageSize },
        );
        return { status: 200, body: { ...result, items: result.items.map(presentAuditEvent) } };
      },
    }),
  ];
}
