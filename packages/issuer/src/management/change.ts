/**
 * How a Management API change runs: every route that changes something declares a {@link ChangeDef}
 * (its audit event type and what it acts on), and the router runs it through {@link runChange} — in
 * one store transaction (`Store.transaction`, serialized with every other change on the database):
 * the caller's authority read again, the route's scopes checked against it, the scope ceiling
 * (`ceiling.ts`), the handler's writes, and the audit event of the change. Either all of it commits or
 * none does, so every change made through the Management API has exactly one audit event, and a
 * refused one has none.
 *
 * The event says who (the client, and the console user who acted), what (the route, the target ids,
 * the names of the fields sent — never their values) and whatever the handler adds
 * ({@link ChangeScope.describe}). A handler whose store method records an event together with its own
 * change (ending impersonations, rotating keys) takes the event ({@link ChangeScope.takeEvent}).
 *
 * @module
 */
import type { AuthInfo } from '@gatehouse/core';
import { PrivilegeError } from '../errors.js';
import type { AuditTrail } from '../internal/audit.js';
import type { ResolvedConfig } from '../issuer-config.js';
import type { AuditEventType, NewAuditEvent, Store, StoreTables } from '../storage/store.js';
import type { Authority, authorityLoader } from './authority.js';
import { type ActsOn, enforceCeiling } from './ceiling.js';

/**
 * What a route that changes something declares.
 *
 * @example
 * ```ts
 * const change: ChangeDef = { event: 'user.roles_assigned', acts: { user: 'id', grantsRoles: true } };
 * ```
 */
export interface ChangeDef {
  /** The audit event type of the change. */
  readonly event: AuditEventType;
  /** What it acts on and grants, for the scope ceiling; nothing: it acts on no principal. */
  readonly acts?: ActsOn | undefined;
  /**
   * `false`: the change is not one transaction of the stores (a key rotation also reloads the keys);
   * the handler hands the event to the store call that makes the change ({@link ChangeScope.takeEvent}).
   */
  readonly transaction?: false | undefined;
  /**
   * A dangerous change (catalogue F20): a console user must have signed in within
   * `console.reauthenticateAfter` seconds — `always`, or `when-granting-management` (only when a role
   * granted, or a scope added, carries a Management API scope). Else 401
   * `insufficient_user_authentication` with `max_age` (RFC 9470): the console signs them in again.
   */
  readonly recentSignIn?: 'always' | 'when-granting-management' | undefined;
}

/** What a handler may add to its change's audit event (it overrides the defaults). */
export interface EventPart {
  /** The user acted upon. */
  readonly userId?: string | null | undefined;
  /** The user who acted, when not the console user making the change. */
  readonly actorId?: string | null | undefined;
  /** Further facts (ids, names); never a secret, token or password. */
  readonly details?: Readonly<Record<string, unknown>> | undefined;
}

/** What a handler of a change gets besides its input. */
export interface ChangeScope {
  /** The caller as its roles stand now. */
  readonly authority: Authority;
  /** The stores, inside the change's transaction. */
  readonly store: StoreTables;
  /** Add to the audit event. */
  describe(part: EventPart): void;
  /** The audit event, for a store method that records it with the change; the router then records none. */
  takeEvent(): NewAuditEvent;
}

/** Refuse a caller whose roles no longer grant any of the route's scopes. */
export function requireRouteScope(authority: Authority, scopes: readonly string[]): void {
  if (authority.all || scopes.some((scope) => authority.managementScopes.has(scope))) return;
  throw new PrivilegeError(
    'scope_not_held',
    `Your roles no longer grant ${scopes.length > 1 ? 'any of ' : ''}${scopes.join(', ')} (or all)`,
  );
}

/** One change: its route, input and caller. */
export interface ChangeRequest {
  readonly method: string;
  readonly path: string;
  readonly scopes: readonly string[];
  readonly change: ChangeDef;
  readonly params: Readonly<Record<string, string>>;
  readonly body: unknown;
  readonly auth: AuthInfo;
  /** Throw 401 `insufficient_user_authentication` unless the token's sign-in is at most `maxAge` s old. */
  readonly requireSignInWithin: (maxAge: number) => void;
}

/** What {@link runChange} needs. */
export interface ChangeDeps {
  readonly store: Store;
  readonly config: Pick<ResolvedConfig, 'console' | 'managementAudience'>;
  readonly audit: AuditTrail;
  readonly now: () => number;
  /** Reads the caller's authority (`authority.ts`). */
  readonly authorityOf: ReturnType<typeof authorityLoader>;
}

/** Whether the change needs a recent sign-in ({@link ChangeDef.recentSignIn}). */
async function isDangerous(tx: StoreTables, authority: Authority, request: ChangeRequest): Promise<boolean> {
  const when = request.change.recentSignIn;
  if (when === undefined) return false;
  if (when === 'always') return true;
  const body = (request.body ?? {}) as { roleIds?: unknown; scopeIds?: unknown };
  const granted = [
    ...(Array.isArray(body.roleIds)
      ? (await Promise.all(body.roleIds.map((id) => tx.roles.listScopes(String(id))))).flat()
      : []),
    ...(Array.isArray(body.scopeIds)
      ? (await Promise.all(body.scopeIds.map((id) => tx.resources.getScopeById(String(id))))).flat()
      : []),
  ];
  return granted.some((scope) => scope?.resourceId === authority.managementResourceId);
}

/** The body's fields and id lists worth recording: names only, ids only. */
function describeInput(request: ChangeRequest): Record<string, unknown> {
  const body = (request.body ?? {}) as Record<string, unknown>;
  const targets: Record<string, unknown> = { ...request.params };
  for (const key of ['roleIds', 'scopeIds'])
    if (Array.isArray(body[key])) targets[key] = [...new Set(body[key] as string[])];
  return {
    route: `${request.method} /api${request.path}`,
    targets,
    fields: Object.keys(body).sort(),
  };
}

/**
 * Run `handler` as the change `request` describes (see the module comment); resolves to what it
 * returned, once committed and logged.
 *
 * @example
 * ```ts
 * const result = await runChange(deps, request, (scope) => handler({ params, body, query, auth, ...scope }));
 * ```
 */
export async function runChange<T>(
  deps: ChangeDeps,
  request: ChangeRequest,
  handler: (scope: ChangeScope) => Promise<T>,
): Promise<T> {
  let part: EventPart = {};
  let event: NewAuditEvent | undefined;
  let taken = false;
  const build = (authority: Authority): NewAuditEvent => {
    const acted = request.change.acts?.user;
    const input = describeInput(request);
    event = deps.audit.prepare({
      type: request.change.event,
      applicationId: authority.clientId,
      userId: part.userId !== undefined ? part.userId : acted === undefined ? null : request.params[acted],
      actorId: part.actorId !== undefined ? part.actorId : (authority.userId ?? null),
      details: { ...input, ...part.details },
    });
    return event;
  };
  const inScope = (authority: Authority, store: StoreTables): ChangeScope => ({
    authority,
    store,
    describe: (more) => {
      part = { ...part, ...more, details: { ...part.details, ...more.details } };
    },
    takeEvent: () => {
      taken = true;
      return build(authority);
    },
  });
  const authorize = async (tx: StoreTables) => {
    const authority = await deps.authorityOf(tx, request.auth);
    requireRouteScope(authority, request.scopes);
    await enforceCeiling(tx, authority, request.change.acts ?? {}, request);
    if (authority.userId !== undefined && (await isDangerous(tx, authority, request)))
      request.requireSignInWithin(deps.config.console.reauthenticateAfter);
    return authority;
  };

  let result: T;
  if (request.change.transaction === false) {
    const authority = await authorize(deps.store);
    result = await handler(inScope(authority, deps.store));
    if (!taken) await deps.store.auditEvents.record(build(authority), deps.now());
  } else {
    result = await deps.store.transaction(async (tx) => {
      const authority = await authorize(tx);
      const value = await handler(inScope(authority, tx));
      if (!taken) await tx.auditEvents.record(build(authority), deps.now());
      return value;
    });
  }
  if (event !== undefined) deps.audit.stored(event);
  return result;
}
