/**
 * The scope ceiling: the one rule every Management API change passes, in the transaction of the
 * change, whatever the route. A caller acts only within the scopes it holds (`authority.ts`), on
 * principals that hold no more than it:
 *
 * - a role may be granted (to a user or an application), and a scope added to a role, only when the
 *   caller holds every scope it grants;
 * - a user or an application may be acted on (changed, deleted, given or relieved of roles, its
 *   password, suspension, personal access tokens, secret or redirect URIs) only when it holds no scope
 *   the caller lacks, and a role changed only when it grants none;
 * - built-in entities — the console's application, the administrator application, the Management API
 *   resource and its scopes, the built-in roles — only by a caller holding `all`; and the console
 *   application's redirect and logout URIs, type, authentication, secret and token-exchange switch by
 *   nobody (its configuration sets them at every start).
 *
 * Routes do not check any of this themselves: each declares what it acts on ({@link ActsOn}) and the
 * router calls {@link enforceCeiling} before the handler. A refusal is a 403 `PrivilegeError` with its
 * reason, and nothing is changed.
 *
 * @module
 */
import { SETTING_KEYS } from '../bootstrap.js';
import { DEFAULTS } from '../config/defaults.js';
import { PrivilegeError } from '../errors.js';
import type { ScopeRecord, StoreTables } from '../storage/store.js';
import { type Authority, holdsScope } from './authority.js';

/**
 * What a Management API route acts on, by the path parameter that names it, and what it grants.
 *
 * @example
 * ```ts
 * const acts: ActsOn = { user: 'id', grantsRoles: true }; // POST /users/{id}/roles { roleIds }
 * ```
 */
export interface ActsOn {
  /** The path parameter naming the user acted on. */
  readonly user?: string;
  /** The path parameter naming the application acted on. */
  readonly application?: string;
  /** The path parameter naming the role changed. */
  readonly role?: string;
  /** The path parameter naming the API resource changed (or whose scopes change). */
  readonly resource?: string;
  /** The body's `roleIds` are granted. */
  readonly grantsRoles?: true;
  /** The body's `scopeIds` are added to the role. */
  readonly grantsScopes?: true;
  /** The application settings changed, when not the body's fields (`['secret']` for a rotation). */
  readonly fields?: readonly string[];
}

/**
 * Settings of the console's application that only its configuration sets (catalogue F6): not through
 * the Management API, not even with `all`.
 *
 * @example
 * ```ts
 * CONSOLE_CONFIGURED_FIELDS.includes('redirectUris'); // true
 * ```
 */
export const CONSOLE_CONFIGURED_FIELDS: readonly string[] = Object.freeze([
  'redirectUris',
  'postLogoutRedirectUris',
  'tokenExchangeEnabled',
  'tokenEndpointAuthMethod',
  'type',
  'secret',
]);

/** What the ceiling needs of one request. */
export interface CeilingInput {
  readonly params: Readonly<Record<string, string>>;
  readonly body: unknown;
}

const MAX_NAMED = 5;

/** `… scopes you do not hold: a, b` (names only, at most five). */
function missing(what: string, scopes: readonly ScopeRecord[]): string {
  const names = [...new Set(scopes.map((scope) => scope.name))];
  const shown = names.slice(0, MAX_NAMED).join(', ');
  return `${what} scopes you do not hold: ${shown}${names.length > MAX_NAMED ? ', …' : ''}`;
}

const idsIn = (body: unknown, key: string): readonly string[] => {
  const value = (body as Record<string, unknown> | undefined)?.[key];
  return Array.isArray(value) ? [...new Set(value.filter((id): id is string => typeof id === 'string'))] : [];
};

/**
 * Refuse (403 `PrivilegeError`) a change the caller may not make; resolves when it may. Runs on the
 * change's transaction, so what it read stays true until the change commits. Targets that do not
 * exist pass: the handler answers 404.
 *
 * @example
 * ```ts
 * await store.transaction(async (tx) => {
 *   await enforceCeiling(tx, authority, { user: 'id', grantsRoles: true }, { params, body });
 *   await tx.roles.assign({ userId: params.id }, body.roleIds);
 * });
 * ```
 */
export async function enforceCeiling(
  tx: StoreTables,
  authority: Authority,
  acts: ActsOn,
  { params, body }: CeilingInput,
): Promise<void> {
  const lacking = (scopes: readonly ScopeRecord[]) => scopes.filter((scope) => !holdsScope(authority, scope));
  const builtIn = (what: string) => {
    if (!authority.all)
      throw new PrivilegeError('built_in', `${what} is built in: only a caller holding all may change it`);
  };

  if (acts.application !== undefined) {
    const id = params[acts.application]!;
    if (id === DEFAULTS.console.clientId) {
      const fields = acts.fields ?? Object.keys((body as object | undefined) ?? {});
      const fixed = fields.filter((field) => CONSOLE_CONFIGURED_FIELDS.includes(field));
      if (fixed.length > 0) {
        throw new PrivilegeError(
          'configuration_only',
          `The console's ${fixed.join(', ')} follow the issuer's configuration and cannot be changed through the Management API`,
        );
      }
      builtIn("The console's application");
    } else if (id === (await tx.settings.get(SETTING_KEYS.adminApplication))) {
      builtIn('The administrator application');
    }
    const held = lacking(await tx.roles.scopesHeld({ applicationId: id }));
    if (held.length > 0)
      throw new PrivilegeError('principal_exceeds_caller', missing('The application holds', held));
  }
  if (acts.user !== undefined) {
    const held = lacking(await tx.roles.scopesHeld({ userId: params[acts.user]! }));
    if (held.length > 0)
      throw new PrivilegeError('principal_exceeds_caller', missing('The user holds', held));
  }
  if (acts.role !== undefined) {
    const role = await tx.roles.get(params[acts.role]!);
    if (role?.system) builtIn(`The role ${role.name}`);
    const granted = role === undefined ? [] : lacking(await tx.roles.listScopes(role.id));
    if (granted.length > 0)
      throw new PrivilegeError('role_exceeds_caller', missing('The role grants', granted));
  }
  if (acts.resource !== undefined) {
    const resource = await tx.resources.get(params[acts.resource]!);
    if (resource?.system) builtIn('The Management API resource');
  }
  if (acts.grantsRoles) {
    for (const roleId of idsIn(body, 'roleIds')) {
      const granted = lacking(await tx.roles.listScopes(roleId));
      if (granted.length > 0)
        throw new PrivilegeError('role_exceeds_caller', missing('A role grants', granted));
    }
  }
  if (acts.grantsScopes) {
    const scopes = await Promise.all(idsIn(body, 'scopeIds').map((id) => tx.resources.getScopeById(id)));
    const beyond = lacking(scopes.filter((scope): scope is ScopeRecord => scope !== undefined));
    if (beyond.length > 0) throw new PrivilegeError('scope_exceeds_caller', missing('These are', beyond));
  }
}
