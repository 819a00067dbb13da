/**
 * Records of the audit trail (migration-defined `audit_events` table): the kinds of event — every
 * change made through the Management API and the impersonation, personal-access-token and sign-in
 * events — an event as stored, the fields of a new one, and the filters of a listing. `store.ts`
 * re-exports all of it beside the store interfaces.
 *
 * Times are Unix epoch seconds.
 *
 * @module
 */

/**
 * Kinds of audit events of changes made through the Management API (one per kind of change; the
 * impersonation and personal-access-token routes record the events of {@link AUDIT_EVENT_TYPES}).
 *
 * @example
 * ```ts
 * import { MANAGEMENT_EVENT_TYPES } from '@gatehouse/issuer';
 * MANAGEMENT_EVENT_TYPES.includes('user.roles_assigned'); // true
 * ```
 */
export const MANAGEMENT_EVENT_TYPES = Object.freeze([
  'user.created',
  'user.updated',
  'user.deleted',
  'user.password_set',
  'user.suspension_set',
  'user.roles_assigned',
  'user.role_removed',
  'application.created',
  'application.updated',
  'application.deleted',
  'application.secret_rotated',
  'application.roles_assigned',
  'application.role_removed',
  'resource.created',
  'resource.updated',
  'resource.deleted',
  'scope.created',
  'scope.updated',
  'scope.deleted',
  'role.created',
  'role.updated',
  'role.deleted',
  'role.scopes_added',
  'role.scope_removed',
  'signing_key.rotated',
  'webhook.created',
  'webhook.deleted',
  'webhook.enabled',
  'webhook.secret_rotated',
] as const);
/** One of {@link MANAGEMENT_EVENT_TYPES}. */
export type ManagementEventType = (typeof MANAGEMENT_EVENT_TYPES)[number];

/**
 * Kinds of audit events: impersonation, personal access tokens, sign-in refusals, and every change
 * made through the Management API ({@link MANAGEMENT_EVENT_TYPES}).
 *
 * @example
 * ```ts
 * import { AUDIT_EVENT_TYPES } from '@gatehouse/issuer';
 * AUDIT_EVENT_TYPES.includes('token_exchange.failed'); // true
 * ```
 */
export const AUDIT_EVENT_TYPES = Object.freeze([
  'subject_token.created',
  'token_exchange.succeeded',
  'token_exchange.failed',
  'personal_access_token.created',
  'personal_access_token.revoked',
  'impersonation.ended',
  'sign_in.failed',
  'sign_in.locked',
  'webhook.disabled',
  ...MANAGEMENT_EVENT_TYPES,
] as const);
/** One of {@link AUDIT_EVENT_TYPES}. */
export type AuditEventType = (typeof AUDIT_EVENT_TYPES)[number];

/** One audit event: who did what to whom, through which application. */
export interface AuditEventRecord {
  readonly id: string;
  readonly type: AuditEventType;
  readonly createdAt: number;
  /** The application that made the request (creator of a subject token, or the exchanging client). */
  readonly applicationId: string | null;
  /** The user acted upon (the impersonated user, the PAT owner). */
  readonly userId: string | null;
  /** The user who really acted (from the actor token), when known. */
  readonly actorId: string | null;
  /** Why it failed (a stable code), for failures. */
  readonly reason: string | null;
  /** Further facts (ids, resource, scope, context); never a token value. */
  readonly details: Readonly<Record<string, unknown>>;
  /** The W3C trace id (32 hex digits) of the request that recorded it, when that request was traced. */
  readonly traceId: string | null;
}

/** Fields of a new audit event. */
export interface NewAuditEvent {
  readonly id: string;
  readonly type: AuditEventType;
  readonly applicationId?: string | null | undefined;
  readonly userId?: string | null | undefined;
  readonly actorId?: string | null | undefined;
  readonly reason?: string | null | undefined;
  readonly details?: Readonly<Record<string, unknown>> | undefined;
}

/** Filters of {@link AuditEventStore.list}; absent ones match everything. Times are inclusive. */
export interface AuditEventFilter {
  /** One type, or any of several. */
  readonly type?: AuditEventType | readonly AuditEventType[] | undefined;
  readonly userId?: string | undefined;
  readonly actorId?: string | undefined;
  readonly applicationId?: string | undefined;
  readonly since?: number | undefined;
  readonly until?: number | undefined;
}
