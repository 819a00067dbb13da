/**
 * The default storage driver: SQLite through Node's built-in `node:sqlite` (no native addon). A file
 * under the data directory, or `:memory:` for tests. Single-node: one issuer process per file.
 *
 * Every query is parameterized; SQL text never contains a value. Every method is one statement or one
 * synchronous transaction, so it is atomic even though the interface is async.
 *
 * @module
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import { StoreConflictError } from '../errors.js';
import { MIGRATIONS } from './migrations/index.js';
import {
  json,
  lower,
  num,
  toApplication,
  toAuditEvent,
  toKey,
  toPayload,
  toPersonalAccessToken,
  toResource,
  toRole,
  toScope,
  toSubjectToken,
  toUser,
} from './rows.js';
import type {
  ApplicationPatch,
  ApplicationStore,
  AuditEventFilter,
  AuditEventStore,
  FailureCounterStore,
  MigrationResult,
  NewApplication,
  NewResource,
  NewRole,
  NewScope,
  NewUser,
  Page,
  PageRequest,
  PayloadIndex,
  PayloadStore,
  PersonalAccessTokenStore,
  ResourcePatch,
  ResourceStore,
  RoleHolder,
  RolePatch,
  RoleScope,
  RoleStore,
  SettingStore,
  SigningKeyRecord,
  SigningKeyStore,
  Store,
  SubjectTokenStore,
  UserPatch,
  UserStore,
} from './store.js';

type Row = Record<string, SQLInputValue>;

/** Columns whose UNIQUE constraint maps to a conflict field name. */
const UNIQUE_FIELDS: Readonly<Record<string, string>> = {
  'users.username_key': 'user.username',
  'users.email_key': 'user.email',
  'users.id': 'user.id',
  'applications.id': 'application.id',
  'resources.indicator': 'resource.indicator',
  'resources.id': 'resource.id',
  'scopes.resource_id, scopes.name': 'scope.name',
  'scopes.id': 'scope.id',
  'roles.name': 'role.name',
  'roles.id': 'role.id',
  'signing_keys.kid': 'signing_key.kid',
  'signing_keys.status': 'signing_key.active',
  'subject_tokens.id': 'subject_token.id',
  'subject_tokens.token_hash': 'subject_token.value',
  'personal_access_tokens.id': 'personal_access_token.id',
  'personal_access_tokens.token_hash': 'personal_access_token.value',
  'personal_access_tokens.user_id, personal_access_tokens.name': 'personal_access_token.name',
  'audit_events.id': 'audit_event.id',
};

function isConstraintError(err: unknown): err is Error & { errcode: number } {
  return err instanceof Error && (err as { code?: unknown }).code === 'ERR_SQLITE_ERROR' && 'errcode' in err;
}

/** A SQLite-backed {@link Store}. Create with {@link openSqliteStore}. */
class SqliteStore implements Store {
  readonly driver = 'sqlite';
  readonly multiNode = false;
  readonly #db: DatabaseSync;
  readonly #statements = new Map<string, StatementSync>();

  readonly users: UserStore;
  readonly applications: ApplicationStore;
  readonly resources: ResourceStore;
  readonly roles: RoleStore;
  readonly keys: SigningKeyStore;
  readonly settings: SettingStore;
  readonly payloads: PayloadStore;
  readonly subjectTokens: SubjectTokenStore;
  readonly personalAccessTokens: PersonalAccessTokenStore;
  readonly auditEvents: AuditEventStore;
  readonly failures: FailureCounterStore;
  readonly #keyListeners = new Set<() => void>();
  readonly #locks = new Map<string, Promise<unknown>>();

  constructor(path: string) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.#db = new DatabaseSync(path);
    this.#db.exec('PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000;');
    if (path !== ':memory:') this.#db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
    this.users = this.#userStore();
    this.applications = this.#applicationStore();
    this.resources = this.#resourceStore();
    this.roles = this.#roleStore();
    this.keys = this.#keyStore();
    this.settings = this.#settingStore();
    this.payloads = this.#payloadStore();
    this.subjectTokens = this.#subjectTokenStore();
    this.personalAccessTokens = this.#personalAccessTokenStore();
    this.auditEvents = this.#auditEventStore();
    this.failures = this.#failureCounterStore();
  }

  #stmt(sql: string): StatementSync {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  #get(sql: string, ...params: SQLInputValue[]): Row | undefined {
    return this.#stmt(sql).get(...params) as Row | undefined;
  }

  #all(sql: string, ...params: SQLInputValue[]): Row[] {
    return this.#stmt(sql).all(...params) as Row[];
  }

  #run(sql: string, ...params: SQLInputValue[]): number {
    try {
      return Number(this.#stmt(sql).run(...params).changes);
    } catch (err) {
      if (isConstraintError(err) && (err.errcode === 2067 || err.errcode === 1555)) {
        const columns = err.message.replace(/^UNIQUE constraint failed: /, '');
        throw new StoreConflictError(UNIQUE_FIELDS[columns] ?? 'unique value');
      }
      throw err;
    }
  }

  #transaction<T>(fn: () => T): T {
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      const result = fn();
      this.#db.exec('COMMIT');
      return result;
    } catch (err) {
      this.#db.exec('ROLLBACK');
      throw err;
    }
  }

  #page<T>(table: string, map: (row: Row) => T, page: PageRequest): Page<T> {
    const total = num(this.#get(`SELECT COUNT(*) AS n FROM ${table}`)!.n);
    const rows = this.#all(
      `SELECT * FROM ${table} ORDER BY created_at, id LIMIT ? OFFSET ?`,
      page.pageSize,
      (page.page - 1) * page.pageSize,
    );
    return { items: rows.map(map), page: page.page, pageSize: page.pageSize, total };
  }

  /** Build `SET a = ?, b = ?` from defined entries only. */
  #update(
    table: string,
    id: string,
    columns: Record<string, SQLInputValue | undefined>,
    now: number,
  ): number {
    const entries = Object.entries(columns).filter(([, value]) => value !== undefined) as Array<
      [string, SQLInputValue]
    >;
    const sets = [...entries.map(([column]) => `${column} = ?`), 'updated_at = ?'].join(', ');
    return this.#run(
      `UPDATE ${table} SET ${sets} WHERE id = ?`,
      ...entries.map(([, value]) => value),
      now,
      id,
    );
  }

  async migrate(): Promise<MigrationResult> {
    this.#db.exec(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)',
    );
    const done = new Set(
      this.#all('SELECT version FROM schema_migrations').map((row) => String(row.version)),
    );
    const applied: string[] = [];
    for (const migration of MIGRATIONS) {
      if (done.has(migration.version)) continue;
      this.#transaction(() => {
        this.#db.exec(migration.sqlite);
        this.#run(
          'INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)',
          migration.version,
          Math.floor(Date.now() / 1000),
        );
      });
      applied.push(migration.version);
    }
    return { applied, current: MIGRATIONS.at(-1)?.version };
  }

  async exclusive<T>(name: string, fn: () => Promise<T>): Promise<T> {
    // Single-node: one process per file, so an in-process queue per name is the whole lock.
    const previous = this.#locks.get(name) ?? Promise.resolve();
    const run = previous.then(fn, fn);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.#locks.set(name, settled);
    try {
      return await run;
    } finally {
      if (this.#locks.get(name) === settled) this.#locks.delete(name);
    }
  }

  async ping(): Promise<void> {
    this.#get('SELECT 1 AS ok');
  }

  async close(): Promise<void> {
    if (this.#db.isOpen) this.#db.close();
  }

  #userStore(): UserStore {
    return {
      create: async (user: NewUser, now: number) => {
        this.#run(
          `INSERT INTO users (id, username, username_key, email, email_key, password_hash, suspended, custom_data, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          user.id,
          user.username,
          lower(user.username),
          user.email ?? null,
          user.email == null ? null : lower(user.email),
          user.passwordHash ?? null,
          user.suspended === true ? 1 : 0,
          json(user.customData ?? {}),
          now,
          now,
        );
        return toUser(this.#get('SELECT * FROM users WHERE id = ?', user.id)!);
      },
      get: async (id) => {
        const row = this.#get('SELECT * FROM users WHERE id = ?', id);
        return row && toUser(row);
      },
      findByLogin: async (identifier) => {
        const key = lower(identifier);
        const row = this.#get(
          'SELECT * FROM users WHERE username_key = ? OR email_key = ? ORDER BY username_key = ? DESC LIMIT 1',
          key,
          key,
          key,
        );
        return row && toUser(row);
      },
      list: async (page) => this.#page('users', toUser, page),
      update: async (id, patch: UserPatch, now) => {
        const changed = this.#update(
          'users',
          id,
          {
            username: patch.username,
            username_key: patch.username === undefined ? undefined : lower(patch.username),
            email: patch.email,
            email_key:
              patch.email === undefined ? undefined : patch.email === null ? null : lower(patch.email),
            password_hash: patch.passwordHash,
            suspended: patch.suspended === undefined ? undefined : patch.suspended ? 1 : 0,
            custom_data: patch.customData === undefined ? undefined : json(patch.customData),
          },
          now,
        );
        return changed === 0 ? undefined : toUser(this.#get('SELECT * FROM users WHERE id = ?', id)!);
      },
      delete: async (id) => this.#run('DELETE FROM users WHERE id = ?', id) > 0,
    };
  }

  #applicationStore(): ApplicationStore {
    return {
      create: async (app: NewApplication, now: number) => {
        this.#run(
          `INSERT INTO applications (id, name, type, redirect_uris, post_logout_redirect_uris, secret_hash, token_endpoint_auth_method,
             first_party, token_exchange_enabled, custom_data, secret_updated_at, created_at, updated_at,
             dpop_bound_access_tokens)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          app.id,
          app.name,
          app.type,
          json(app.redirectUris ?? []),
          json(app.postLogoutRedirectUris ?? []),
          app.secretHash,
          app.tokenEndpointAuthMethod,
          app.firstParty === false ? 0 : 1,
          app.tokenExchangeEnabled === true ? 1 : 0,
          json(app.customData ?? {}),
          app.secretHash === null ? null : now,
          now,
          now,
          app.dpopBoundAccessTokens === true ? 1 : 0,
        );
        return toApplication(this.#get('SELECT * FROM applications WHERE id = ?', app.id)!);
      },
      get: async (id) => {
        const row = this.#get('SELECT * FROM applications WHERE id = ?', id);
        return row && toApplication(row);
      },
      findByName: async (name) => {
        const row = this.#get('SELECT * FROM applications WHERE name = ? ORDER BY created_at LIMIT 1', name);
        return row && toApplication(row);
      },
      list: async (page) => this.#page('applications', toApplication, page),
      update: async (id, patch: ApplicationPatch, now) => {
        const changed = this.#update(
          'applications',
          id,
          {
            name: patch.name,
            redirect_uris: patch.redirectUris === undefined ? undefined : json(patch.redirectUris),
            post_logout_redirect_uris:
              patch.postLogoutRedirectUris === undefined ? undefined : json(patch.postLogoutRedirectUris),
            secret_hash: patch.secretHash,
            secret_updated_at: patch.secretHash === undefined ? undefined : now,
            token_endpoint_auth_method: patch.tokenEndpointAuthMethod,
            first_party: patch.firstParty === undefined ? undefined : patch.firstParty ? 1 : 0,
            token_exchange_enabled:
              patch.tokenExchangeEnabled === undefined ? undefined : patch.tokenExchangeEnabled ? 1 : 0,
            dpop_bound_access_tokens:
              patch.dpopBoundAccessTokens === undefined ? undefined : patch.dpopBoundAccessTokens ? 1 : 0,
            custom_data: patch.customData === undefined ? undefined : json(patch.customData),
          },
          now,
        );
        return changed === 0
          ? undefined
          : toApplication(this.#get('SELECT * FROM applications WHERE id = ?', id)!);
      },
      delete: async (id) => this.#run('DELETE FROM applications WHERE id = ?', id) > 0,
    };
  }

  #resourceStore(): ResourceStore {
    return {
      create: async (resource: NewResource, now: number) => {
        this.#run(
          'INSERT INTO resources (id, name, indicator, access_token_ttl, system, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
          resource.id,
          resource.name,
          resource.indicator,
          resource.accessTokenTtl,
          resource.system === true ? 1 : 0,
          now,
          now,
        );
        return toResource(this.#get('SELECT * FROM resources WHERE id = ?', resource.id)!);
      },
      get: async (id) => {
        const row = this.#get('SELECT * FROM resources WHERE id = ?', id);
        return row && toResource(row);
      },
      findByIndicator: async (indicator) => {
        const row = this.#get('SELECT * FROM resources WHERE indicator = ?', indicator);
        return row && toResource(row);
      },
      list: async (page) => this.#page('resources', toResource, page),
      update: async (id, patch: ResourcePatch, now) => {
        const changed = this.#update(
          'resources',
          id,
          { name: patch.name, indicator: patch.indicator, access_token_ttl: patch.accessTokenTtl },
          now,
        );
        return changed === 0 ? undefined : toResource(this.#get('SELECT * FROM resources WHERE id = ?', id)!);
      },
      delete: async (id) => this.#run('DELETE FROM resources WHERE id = ?', id) > 0,
      createScope: async (scope: NewScope, now: number) => {
        this.#run(
          'INSERT INTO scopes (id, resource_id, name, description, created_at) VALUES (?, ?, ?, ?, ?)',
          scope.id,
          scope.resourceId,
          scope.name,
          scope.description ?? '',
          now,
        );
        return toScope(this.#get('SELECT * FROM scopes WHERE id = ?', scope.id)!);
      },
      getScope: async (resourceId, scopeId) => {
        const row = this.#get('SELECT * FROM scopes WHERE resource_id = ? AND id = ?', resourceId, scopeId);
        return row && toScope(row);
      },
      getScopeById: async (scopeId) => {
        const row = this.#get('SELECT * FROM scopes WHERE id = ?', scopeId);
        return row && toScope(row);
      },
      findScope: async (resourceId, name) => {
        const row = this.#get('SELECT * FROM scopes WHERE resource_id = ? AND name = ?', resourceId, name);
        return row && toScope(row);
      },
      listScopes: async (resourceId) =>
        this.#all('SELECT * FROM scopes WHERE resource_id = ? ORDER BY name', resourceId).map(toScope),
      updateScope: async (resourceId, scopeId, description) => {
        const changed = this.#run(
          'UPDATE scopes SET description = ? WHERE resource_id = ? AND id = ?',
          description,
          resourceId,
          scopeId,
        );
        return changed === 0 ? undefined : toScope(this.#get('SELECT * FROM scopes WHERE id = ?', scopeId)!);
      },
      deleteScope: async (resourceId, scopeId) =>
        this.#run('DELETE FROM scopes WHERE resource_id = ? AND id = ?', resourceId, scopeId) > 0,
    };
  }

  #roleStore(): RoleStore {
    const holderTable = (holder: RoleHolder): [table: string, column: string, id: string] =>
      'userId' in holder
        ? ['user_roles', 'user_id', holder.userId]
        : ['application_roles', 'application_id', holder.applicationId];
    return {
      create: async (role: NewRole, now: number) => {
        this.#run(
          'INSERT INTO roles (id, name, description, type, system, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
          role.id,
          role.name,
          role.description ?? '',
          role.type,
          role.system === true ? 1 : 0,
          now,
          now,
        );
        return toRole(this.#get('SELECT * FROM roles WHERE id = ?', role.id)!);
      },
      get: async (id) => {
        const row = this.#get('SELECT * FROM roles WHERE id = ?', id);
        return row && toRole(row);
      },
      findByName: async (name) => {
        const row = this.#get('SELECT * FROM roles WHERE name = ?', name);
        return row && toRole(row);
      },
      list: async (page) => this.#page('roles', toRole, page),
      update: async (id, patch: RolePatch, now) => {
        const changed = this.#update('roles', id, { name: patch.name, description: patch.description }, now);
        return changed === 0 ? undefined : toRole(this.#get('SELECT * FROM roles WHERE id = ?', id)!);
      },
      delete: async (id) => this.#run('DELETE FROM roles WHERE id = ?', id) > 0,
      addScopes: async (roleId, scopeIds) => {
        this.#transaction(() => {
          for (const scopeId of scopeIds) {
            this.#run(
              'INSERT OR IGNORE INTO role_scopes (role_id, scope_id) SELECT ?, id FROM scopes WHERE id = ?',
              roleId,
              scopeId,
            );
          }
        });
      },
      removeScope: async (roleId, scopeId) =>
        this.#run('DELETE FROM role_scopes WHERE role_id = ? AND scope_id = ?', roleId, scopeId) > 0,
      listScopes: async (roleId) =>
        this.#all(
          `SELECT s.*, r.indicator FROM role_scopes rs JOIN scopes s ON s.id = rs.scope_id JOIN resources r ON r.id = s.resource_id
           WHERE rs.role_id = ? ORDER BY r.indicator, s.name`,
          roleId,
        ).map((row): RoleScope => ({ ...toScope(row), indicator: String(row.indicator) })),
      assign: async (holder, roleIds) => {
        const [table, column, id] = holderTable(holder);
        this.#transaction(() => {
          for (const roleId of roleIds)
            this.#run(`INSERT OR IGNORE INTO ${table} (${column}, role_id) VALUES (?, ?)`, id, roleId);
        });
      },
      unassign: async (holder, roleId) => {
        const [table, column, id] = holderTable(holder);
        return this.#run(`DELETE FROM ${table} WHERE ${column} = ? AND role_id = ?`, id, roleId) > 0;
      },
      listFor: async (holder) => {
        const [table, column, id] = holderTable(holder);
        return this.#all(
          `SELECT r.* FROM ${table} h JOIN roles r ON r.id = h.role_id WHERE h.${column} = ? ORDER BY r.name`,
          id,
        ).map(toRole);
      },
      grantedScopes: async (holder, indicator) => {
        const [table, column, id] = holderTable(holder);
        return this.#all(
          `SELECT DISTINCT s.name FROM ${table} h
             JOIN role_scopes rs ON rs.role_id = h.role_id
             JOIN scopes s ON s.id = rs.scope_id
             JOIN resources r ON r.id = s.resource_id
           WHERE h.${column} = ? AND r.indicator = ? ORDER BY s.name`,
          id,
          indicator,
        ).map((row) => String(row.name));
      },
    };
  }

  #keyStore(): SigningKeyStore {
    const insert = (key: SigningKeyRecord) =>
      this.#run(
        'INSERT INTO signing_keys (kid, alg, private_jwk, status, created_at, retired_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
        key.kid,
        key.alg,
        json(key.privateJwk),
        key.status,
        key.createdAt,
        key.retiredAt,
        key.expiresAt,
      );
    return {
      list: async () =>
        this.#all("SELECT * FROM signing_keys ORDER BY status = 'active' DESC, created_at DESC, kid").map(
          toKey,
        ),
      insertInitial: async (key) => {
        let inserted = false;
        const active = this.#transaction(() => {
          const current = this.#get(
            "SELECT * FROM signing_keys WHERE status = 'active' ORDER BY created_at DESC LIMIT 1",
          );
          if (current !== undefined) return toKey(current);
          insert({ ...key, status: 'active' });
          inserted = true;
          return toKey(this.#get('SELECT * FROM signing_keys WHERE kid = ?', key.kid)!);
        });
        if (inserted) this.#keysChanged();
        return active;
      },
      rotate: async (key, now, expiresAt) => {
        this.#transaction(() => {
          this.#run(
            "UPDATE signing_keys SET status = 'retired', retired_at = ?, expires_at = ? WHERE status = 'active'",
            now,
            expiresAt,
          );
          insert({ ...key, status: 'active', retiredAt: null, expiresAt: null });
        });
        this.#keysChanged();
      },
      purgeExpired: async (now) =>
        this.#run("DELETE FROM signing_keys WHERE status = 'retired' AND expires_at <= ?", now),
      watch: (listener) => {
        const once = () => listener();
        this.#keyListeners.add(once);
        queueMicrotask(() => {
          if (this.#keyListeners.has(once)) once();
        });
        return () => void this.#keyListeners.delete(once);
      },
    };
  }

  #keysChanged(): void {
    for (const listener of this.#keyListeners) queueMicrotask(listener);
  }

  #settingStore(): SettingStore {
    return {
      get: async (key) => {
        const row = this.#get('SELECT value FROM settings WHERE key = ?', key);
        return row === undefined ? undefined : String(row.value);
      },
      setIfAbsent: async (key, value) => {
        this.#run('INSERT OR IGNORE INTO settings (key, value) VALUES (?, ?)', key, value);
        return String(this.#get('SELECT value FROM settings WHERE key = ?', key)!.value);
      },
      set: async (key, value) => {
        this.#run(
          'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
          key,
          value,
        );
      },
    };
  }

  #payloadStore(): PayloadStore {
    const live = '(expires_at IS NULL OR expires_at > ?)';
    return {
      upsert: async (model, id, payload, expiresAt, index: PayloadIndex) => {
        this.#run(
          `INSERT INTO oidc_payloads (model, id, payload, grant_id, uid, user_code, expires_at, consumed_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, NULL)
           ON CONFLICT (model, id) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id, uid = excluded.uid,
             user_code = excluded.user_code, expires_at = excluded.expires_at`,
          model,
          id,
          json(payload),
          index.grantId ?? null,
          index.uid ?? null,
          index.userCode ?? null,
          expiresAt,
        );
      },
      find: async (model, id, now) => {
        const row = this.#get(
          `SELECT * FROM oidc_payloads WHERE model = ? AND id = ? AND ${live}`,
          model,
          id,
          now,
        );
        return row && toPayload(row);
      },
      findByUid: async (model, uid, now) => {
        const row = this.#get(
          `SELECT * FROM oidc_payloads WHERE model = ? AND uid = ? AND ${live}`,
          model,
          uid,
          now,
        );
        return row && toPayload(row);
      },
      findByUserCode: async (model, userCode, now) => {
        const row = this.#get(
          `SELECT * FROM oidc_payloads WHERE model = ? AND user_code = ? AND ${live}`,
          model,
          userCode,
          now,
        );
        return row && toPayload(row);
      },
      consume: async (model, id, now) =>
        this.#get(
          `UPDATE oidc_payloads SET consumed_at = ? WHERE model = ? AND id = ? AND consumed_at IS NULL AND ${live} RETURNING id`,
          now,
          model,
          id,
          now,
        ) !== undefined,
      destroy: async (model, id) => {
        this.#run('DELETE FROM oidc_payloads WHERE model = ? AND id = ?', model, id);
      },
      revokeByGrantId: async (grantId) => {
        this.#run('DELETE FROM oidc_payloads WHERE grant_id = ?', grantId);
      },
      purgeExpired: async (now) =>
        this.#run('DELETE FROM oidc_payloads WHERE expires_at IS NOT NULL AND expires_at <= ?', now),
    };
  }

  #subjectTokenStore(): SubjectTokenStore {
    return {
      create: async (token, now) => {
        this.#run(
          `INSERT INTO subject_tokens (id, token_hash, user_id, context, application_id, actor_id, created_by, created_at, expires_at, consumed_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)`,
          token.id,
          token.tokenHash,
          token.userId,
          json(token.context ?? {}),
          token.applicationId ?? null,
          token.actorId ?? null,
          token.createdBy,
          now,
          token.expiresAt,
        );
        return toSubjectToken(this.#get('SELECT * FROM subject_tokens WHERE id = ?', token.id)!);
      },
      consume: async (tokenHash, now) => {
        const row = this.#get(
          `UPDATE subject_tokens SET consumed_at = ?
           WHERE token_hash = ? AND consumed_at IS NULL AND expires_at > ? RETURNING *`,
          now,
          tokenHash,
          now,
        );
        return row && toSubjectToken(row);
      },
      findByHash: async (tokenHash) => {
        const row = this.#get('SELECT * FROM subject_tokens WHERE token_hash = ?', tokenHash);
        return row && toSubjectToken(row);
      },
      purgeExpired: async (before) => this.#run('DELETE FROM subject_tokens WHERE expires_at < ?', before),
    };
  }

  #personalAccessTokenStore(): PersonalAccessTokenStore {
    return {
      create: async (token, now) => {
        this.#run(
          `INSERT INTO personal_access_tokens (id, token_hash, user_id, name, scopes, expires_at, created_at, last_used_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, NULL)`,
          token.id,
          token.tokenHash,
          token.userId,
          token.name,
          token.scopes == null ? null : json(token.scopes),
          token.expiresAt ?? null,
          now,
        );
        return toPersonalAccessToken(
          this.#get('SELECT * FROM personal_access_tokens WHERE id = ?', token.id)!,
        );
      },
      listFor: async (userId) =>
        this.#all(
          'SELECT * FROM personal_access_tokens WHERE user_id = ? ORDER BY created_at, id',
          userId,
        ).map(toPersonalAccessToken),
      findByHash: async (tokenHash) => {
        const row = this.#get('SELECT * FROM personal_access_tokens WHERE token_hash = ?', tokenHash);
        return row && toPersonalAccessToken(row);
      },
      delete: async (userId, id) =>
        this.#run('DELETE FROM personal_access_tokens WHERE user_id = ? AND id = ?', userId, id) > 0,
      touch: async (id, now) => {
        this.#run('UPDATE personal_access_tokens SET last_used_at = ? WHERE id = ?', now, id);
      },
    };
  }

  #auditEventStore(): AuditEventStore {
    return {
      record: async (event, now) => {
        this.#run(
          `INSERT INTO audit_events (id, type, created_at, application_id, user_id, actor_id, reason, details)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
          event.id,
          event.type,
          now,
          event.applicationId ?? null,
          event.userId ?? null,
          event.actorId ?? null,
          event.reason ?? null,
          json(event.details ?? {}),
        );
        return toAuditEvent(this.#get('SELECT * FROM audit_events WHERE id = ?', event.id)!);
      },
      list: async (filter: AuditEventFilter, page) => {
        const conditions: string[] = [];
        const params: SQLInputValue[] = [];
        const where = (condition: string, value: SQLInputValue | undefined) => {
          if (value === undefined) return;
          conditions.push(condition);
          params.push(value);
        };
        where('type = ?', filter.type);
        where('user_id = ?', filter.userId);
        where('actor_id = ?', filter.actorId);
        where('application_id = ?', filter.applicationId);
        where('created_at >= ?', filter.since);
        where('created_at <= ?', filter.until);
        const clause = conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`;
        const total = num(this.#get(`SELECT COUNT(*) AS n FROM audit_events ${clause}`, ...params)!.n);
        const rows = this.#all(
          `SELECT * FROM audit_events ${clause} ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?`,
          ...params,
          page.pageSize,
          (page.page - 1) * page.pageSize,
        );
        return { items: rows.map(toAuditEvent), page: page.page, pageSize: page.pageSize, total };
      },
    };
  }

  #failureCounterStore(): FailureCounterStore {
    return {
      get: async (key, now) => {
        const row = this.#get(
          'SELECT count, ends_at FROM failure_counters WHERE key = ? AND ends_at > ?',
          key,
          now,
        );
        return row && { count: num(row.count), endsAt: num(row.ends_at) };
      },
      increment: async (key, now, window) => {
        const row = this.#get(
          `INSERT INTO failure_counters (key, count, ends_at) VALUES (?, 1, ?)
           ON CONFLICT (key) DO UPDATE SET
             count = CASE WHEN failure_counters.ends_at <= ? THEN 1 ELSE failure_counters.count + 1 END,
             ends_at = CASE WHEN failure_counters.ends_at <= ? THEN excluded.ends_at ELSE failure_counters.ends_at END
           RETURNING count, ends_at`,
          key,
          now + window,
          now,
          now,
        )!;
        return { count: num(row.count), endsAt: num(row.ends_at) };
      },
      purgeExpired: async (now) => this.#run('DELETE FROM failure_counters WHERE ends_at <= ?', now),
    };
  }
}

/**
 * Open (or create) a SQLite store. Call `migrate()` before use; `createIssuer()` does it for you.
 *
 * @param path - A file path (its directory is created) or `:memory:`.
 *
 * @example
 * ```ts
 * import { openSqliteStore } from '@gatehouse/issuer';
 *
 * const store = openSqliteStore('./.data/issuer.sqlite');
 * const { applied } = await store.migrate();
 * ```
 */
export function openSqliteStore(path: string): Store {
  if (typeof path !== 'string' || path.length === 0)
    throw new TypeError('"path" must be a file path or ":memory:"');
  return new SqliteStore(path);
}
