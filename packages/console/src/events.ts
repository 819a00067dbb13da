/**
 * Audit events for people (no DOM: unit-tested in Node): which view of the activity page shows which
 * event types, a sentence for each administrator's change (with references to what it acted on, which
 * the page turns into named links), and the reasons of refused exchanges and sign-ins as sentences.
 */

/** An audit event as the Management API returns it. */
export interface AuditEvent {
  readonly id: string;
  readonly type: string;
  readonly createdAt: string;
  readonly applicationId: string | null;
  readonly userId: string | null;
  readonly actorId: string | null;
  readonly reason: string | null;
  readonly details: Readonly<Record<string, unknown>>;
}

/** The activity page's views. */
export type ActivityView = 'impersonation' | 'administration' | 'sign-in';

/**
 * Event types per view, with a short label each (the type filter's options).
 *
 * @example
 * ```ts
 * 'user.password_set' in VIEW_TYPES.administration; // true
 * ```
 */
export const VIEW_TYPES: Readonly<Record<ActivityView, Readonly<Record<string, string>>>> = {
  impersonation: {
    'subject_token.created': 'Subject token created',
    'token_exchange.succeeded': 'Exchanged',
    'token_exchange.failed': 'Exchange refused',
  },
  administration: {
    'user.created': 'User created',
    'user.updated': 'User changed',
    'user.deleted': 'User deleted',
    'user.password_set': 'Password set',
    'user.suspension_set': 'User enabled or disabled',
    'user.roles_assigned': 'Roles given to a user',
    'user.role_removed': 'Role taken from a user',
    'personal_access_token.created': 'Personal access token created',
    'personal_access_token.revoked': 'Personal access token revoked',
    'application.created': 'Application created',
    'application.updated': 'Application changed',
    'application.deleted': 'Application deleted',
    'application.secret_rotated': 'Client secret rotated',
    'application.roles_assigned': 'Roles given to an application',
    'application.role_removed': 'Role taken from an application',
    'resource.created': 'API resource created',
    'resource.updated': 'API resource changed',
    'resource.deleted': 'API resource deleted',
    'scope.created': 'Scope created',
    'scope.updated': 'Scope changed',
    'scope.deleted': 'Scope deleted',
    'role.created': 'Role created',
    'role.updated': 'Role changed',
    'role.deleted': 'Role deleted',
    'role.scopes_added': 'Scopes added to a role',
    'role.scope_removed': 'Scope removed from a role',
    'signing_key.rotated': 'Signing key rotated',
    'webhook.created': 'Webhook registered',
    'webhook.deleted': 'Webhook removed',
    'webhook.enabled': 'Webhook enabled',
    'webhook.secret_rotated': 'Webhook secret rotated',
  },
  'sign-in': {
    'sign_in.failed': 'Sign-in refused',
    'sign_in.locked': 'Sign-ins locked',
  },
};

/** What a change acted on: the page shows it by name, linked when the session may read it. */
export interface Ref {
  readonly kind: 'user' | 'application' | 'role' | 'resource' | 'scope' | 'webhook' | 'key';
  readonly id: string;
  /** A scope's API resource, when the event names it. */
  readonly resourceId?: string | undefined;
}

/** A sentence as text and references, in reading order. */
export type Phrase = readonly (string | Ref | readonly Ref[])[];

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const ids = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((id): id is string => typeof id === 'string') : [];

/**
 * The sentence of an administrator's change ("Gave carol the role …"), or `undefined` for another
 * kind of event.
 *
 * @example
 * ```ts
 * describeChange({ type: 'user.password_set', userId: 'usr_1', details: { targets: { id: 'usr_1' } }, … });
 * // ['Set the password of ', { kind: 'user', id: 'usr_1' }]
 * ```
 */
export function describeChange(event: AuditEvent): Phrase | undefined {
  const targets = (event.details.targets ?? {}) as Record<string, unknown>;
  const id = str(targets.id);
  const ref = (kind: Ref['kind'], value: string | undefined | null): Ref | string =>
    value ? { kind, id: value } : `an unnamed ${kind}`;
  const user = ref('user', id ?? event.userId);
  const app = ref('application', id);
  const role = ref('role', id);
  const resource = ref('resource', id);
  const scope: Ref | string = str(targets.scopeId)
    ? { kind: 'scope', id: str(targets.scopeId)!, resourceId: id }
    : 'a scope';
  const roles = ids(targets.roleIds).map((roleId): Ref => ({ kind: 'role', id: roleId }));
  const roleRef = ref('role', str(targets.roleId) ?? str(event.details.roleId));
  const scopes = ids(targets.scopeIds).map((scopeId): Ref => ({ kind: 'scope', id: scopeId }));
  const plural = (list: readonly unknown[], one: string, many: string) => (list.length === 1 ? one : many);
  switch (event.type) {
    case 'user.created':
      return ['Created the user ', user];
    case 'user.updated':
      return ['Changed the user ', user];
    case 'user.deleted':
      return ['Deleted the user ', user];
    case 'user.password_set':
      return ['Set the password of ', user];
    case 'user.suspension_set':
      return event.details.suspended === true
        ? ['Disabled the user ', user]
        : event.details.suspended === false
          ? ['Enabled the user ', user]
          : ['Enabled or disabled the user ', user];
    case 'user.roles_assigned':
      return ['Gave ', user, plural(roles, ' the role ', ' the roles '), roles];
    case 'user.role_removed':
      return ['Took the role ', roleRef, ' from ', user];
    case 'personal_access_token.created': {
      const name = str(event.details.name);
      return [`Created the personal access token ${name ? `“${name}” ` : ''}of `, ref('user', event.userId)];
    }
    case 'personal_access_token.revoked':
      return ['Revoked a personal access token of ', ref('user', event.userId)];
    case 'application.created':
      return ['Created the application ', app];
    case 'application.updated':
      return ['Changed the application ', app];
    case 'application.deleted':
      return ['Deleted the application ', app];
    case 'application.secret_rotated':
      return ['Rotated the client secret of ', app];
    case 'application.roles_assigned':
      return ['Gave ', app, plural(roles, ' the role ', ' the roles '), roles];
    case 'application.role_removed':
      return ['Took the role ', roleRef, ' from ', app];
    case 'resource.created':
      return ['Created the API resource ', resource];
    case 'resource.updated':
      return ['Changed the API resource ', resource];
    case 'resource.deleted':
      return ['Deleted the API resource ', resource];
    case 'scope.created':
      return ['Created the scope ', scope, ' of ', resource];
    case 'scope.updated':
      return ['Changed the scope ', scope, ' of ', resource];
    case 'scope.deleted':
      return ['Deleted the scope ', scope, ' of ', resource];
    case 'role.created':
      return ['Created the role ', role];
    case 'role.updated':
      return ['Changed the role ', role];
    case 'role.deleted':
      return ['Deleted the role ', role];
    case 'role.scopes_added':
      return [plural(scopes, 'Added the scope ', 'Added the scopes '), scopes, ' to the role ', role];
    case 'role.scope_removed':
      return ['Removed the scope ', scope, ' from the role ', role];
    case 'signing_key.rotated':
      return ['Rotated the signing key; the new key is ', ref('key', str(targets.kid))];
    case 'webhook.created':
      return ['Registered the webhook ', ref('webhook', id)];
    case 'webhook.deleted':
      return ['Removed the webhook ', ref('webhook', id)];
    case 'webhook.enabled':
      return ['Enabled the webhook ', ref('webhook', id), ' again'];
    case 'webhook.secret_rotated':
      return ['Rotated the signing secret of the webhook ', ref('webhook', id)];
    default:
      return undefined;
  }
}

/** Why an exchange was refused (`token_exchange.failed` reasons), as sentences. */
const EXCHANGE_REFUSALS: Readonly<Record<string, string>> = {
  missing_parameter: 'A required parameter was missing.',
  unsupported_parameter: 'The request carried a parameter that token exchange does not take.',
  unsupported_token_type: 'The token type is not one the issuer exchanges.',
  subject_token_unknown: 'The subject token is unknown.',
  subject_token_expired: 'The subject token had expired.',
  subject_token_consumed: 'The subject token had been used already: each one is exchanged once.',
  subject_token_wrong_type: 'The subject token is not of the type the request named.',
  application_mismatch: 'The subject token was created for another application.',
  actor_token_required: 'The subject token asks for an actor token, and none was sent.',
  actor_token_required_by_application: 'The application must send an actor token, and none was sent.',
  actor_mismatch: 'The actor token names someone other than the subject token’s actor.',
  actor_token_invalid: 'The actor token is not valid.',
  actor_not_allowed: 'The actor may not impersonate.',
  actor_chain_too_deep: 'The chain of actors is too long.',
  actor_token_key_mismatch: 'The actor token is bound to another key.',
  dpop_required: 'The application must send a DPoP proof, and none was sent.',
  user_missing: 'The user no longer exists.',
  user_suspended: 'The user is suspended.',
  personal_access_token_unknown: 'The personal access token is unknown or revoked.',
  personal_access_token_expired: 'The personal access token had expired.',
  invalid_target: 'The API asked for is not one the token may be used at.',
  invalid_scope: 'A scope asked for is not one the user or the token may have.',
  rate_limited: 'Too many failed exchanges from this application: it has to wait.',
  custom_claims_denied: 'The issuer’s custom-claims rule refused it.',
  custom_claims_failed: 'The issuer’s custom-claims rule failed.',
  unauthorized_client: 'The application may not use token exchange.',
};

/** Why a sign-in was refused (`sign_in.failed` reasons), as sentences. */
const SIGN_IN_REFUSALS: Readonly<Record<string, string>> = {
  invalid_credentials: 'The username, email or password was wrong.',
  suspended: 'The account is suspended.',
  locked: 'Sign-ins were locked after too many failures.',
  busy: 'Too many sign-ins were being checked at that moment.',
};

/** Spell out a stable code ("subject_token_consumed" → "Subject token consumed."). */
const spelled = (code: string) => {
  const words = code.replaceAll('_', ' ');
  return `${words[0]!.toUpperCase()}${words.slice(1)}.`;
};

/**
 * Why an exchange was refused, as a sentence (the reason's, else the event's description, else the
 * code spelled out).
 *
 * @example
 * ```ts
 * exchangeRefusal('subject_token_consumed'); // 'The subject token had been used already: …'
 * ```
 */
export function exchangeRefusal(reason: string | null, description?: unknown): string {
  if (reason !== null && reason in EXCHANGE_REFUSALS) return EXCHANGE_REFUSALS[reason]!;
  if (typeof description === 'string' && description !== '')
    return `${description[0]!.toUpperCase()}${description.slice(1).replace(/[.]?$/, '.')}`;
  return reason === null ? 'Refused.' : spelled(reason);
}

/**
 * Why a sign-in was refused or locked, as a sentence.
 *
 * @example
 * ```ts
 * signInRefusal({ type: 'sign_in.failed', reason: 'invalid_credentials', … }); // 'The username, email or password was wrong.'
 * ```
 */
export function signInRefusal(event: Pick<AuditEvent, 'type' | 'reason'>): string {
  if (event.type === 'sign_in.locked')
    return event.reason === 'address'
      ? 'Too many failures from this address: sign-ins from it were locked.'
      : 'Too many failures for this account: its sign-ins were locked.';
  if (event.reason !== null && event.reason in SIGN_IN_REFUSALS) return SIGN_IN_REFUSALS[event.reason]!;
  return event.reason === null ? 'Refused.' : spelled(event.reason);
}
