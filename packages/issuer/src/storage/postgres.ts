/**
 * The PostgreSQL storage driver (`pg`, pooled): several issuer processes on one database behave as one
 * server. Selected by a `postgres://` / `postgresql://` URL as `database` (`DATABASE_URL`).
 *
 * - Every query is parameterized (`$1 … $n`); SQL text never contains a value. Statements are
 *   prepared once per connection (and again after another process altered a table under them).
 * - Single-use artifacts are consumed by one conditional update (`UPDATE … WHERE consumed_at IS NULL
 *   AND expires_at > $now RETURNING …`): under READ COMMITTED a concurrent second update re-checks the
 *   row after the first commits and matches nothing, so exactly one caller wins across every process.
 * - Methods that write several rows run in one transaction, or are one statement.
 * - Migrations and start-up run under advisory locks, so instances started together do not race.
 * - Key changes are announced with `NOTIFY`; every store that `watch`es keys holds one extra
 *   connection that `LISTEN`s.
 *
 * The tables live in the connection's `search_path` (usually `public`); to give an issuer its own
 * schema, add `?options=-c%20search_path%3Dmyschema` to the URL. Text cannot hold U+0000 in
 * PostgreSQL: lookups by such a value find nothing, as they would on SQLite; inserting one throws.
 *
 * @module
 */
import pg from 'pg';
import { DEFAULTS } from '../config/defaults.js';
import { StoreConflictError } from '../errors.js';
import { MIGRATIONS } from './migrations/index.js';
import {
  json,
  lower,
  num,
  type Row,
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
  ApplicationStore,
  AuditEventStore,
  FailureCounterStore,
  MigrationResult,
  Page,
  PageRequest,
  PayloadStore,
  PersonalAccessTokenStore,
  ResourceStore,
  RoleHolder,
  RoleScope,
  RoleStore,
  SettingStore,
  SigningKeyRecord,
  SigningKeyStore,
  Store,
  SubjectTokenStore,
  UserStore,
} from './store.js';

/** Channel of key-change notifications; the payload is the schema whose keys changed. */
const KEYS_CHANNEL = 'gatehouse_signing_keys';
/** Advisory-lock key of `name` in the current schema (locks are database-wide, schemas are not). */
const LOCK_KEY = "hashtext(coalesce(current_schema(), '') || ':gatehouse:' || $1)";
/** Most distinct SQL texts prepared per connection; further ones run unnamed. */
const MAX_PREPARED = 500;
/** SQLSTATE of "cached plan must not change result type" (a table changed under a prepared plan). */
const PLAN_CHANGED = '0A000';
/** Longest wait before the notification connection is tried again, in milliseconds. */
const MAX_RECONNECT_DELAY_MS = 30_000;

/**
 * Options of {@link openPostgresStore}. Defaults are `DEFAULTS.postgres`.
 *
 * @example
 * ```ts
 * const options: PostgresStoreOptions = { poolSize: 20, onError: (err) => console.warn(err.message) };
 * ```
 */
export interface PostgresStoreOptions {
  /** Most connections the pool opens (queries beyond wait for one), at least 2. Default 10. */
  readonly poolSize?: number | undefined;
  /** Milliseconds to wait for a connection before a query fails. Default 10000. */
  readonly connectionTimeout?: number | undefined;
  /** Milliseconds an unused pooled connection stays open. Default 30000. */
  readonly idleTimeout?: number | undefined;
  /** Called with errors of idle connections and of the notification connection (never thrown). */
  readonly onError?: ((err: Error) => void) | undefined;
}

type Client = pg.PoolClient;
type Queryable = Pick<pg.Pool, 'query'> | Client;

/** Unique constraints (PostgreSQL's generated names) and the conflict field each maps to. */
const UNIQUE_FIELDS: Readonly<Record<string, string>> = {
  users_username_key_key: 'user.username',
  users_email_key_key: 'user.email',
  users_pkey: 'user.id',
  applications_pkey: 'application.id',
  resources_indicator_key: 'resource.indicator',
  resources_pkey: 'resource.id',
  scopes_resource_id_name_key: 'scope.name',
  scopes_pkey: 'scope.id',
  roles_name_key: 'role.name',
  roles_pkey: 'role.id',
  signing_keys_pkey: 'signing_key.kid',
  signing_keys_one_active: 'signing_key.active',
  subject_tokens_pkey: 'subject_token.id',
  subject_tokens_token_hash_key: 'subject_token.value',
  personal_access_tokens_pkey: 'personal_access_token.id',
  personal_access_tokens_token_hash_key: 'personal_access_token.value',
  personal_access_tokens_user_id_name_key: 'personal_access_token.name',
  audit_events_pkey: 'audit_event.id',
};

const hasNul = (value: unknown): boolean =>
  typeof value === 'string' ? value.includes('\0') : Array.isArray(value) && value.some(hasNul);

/**
 * PostgreSQL text cannot hold U+0000, so no stored value contains it: a statement that looks a row up
 * by such a value matches nothing (as it would on SQLite), and inserting one is refused. (The
 * Management API refuses U+0000 in the text it stores, so only lookups by hostile ids get here.)
 */
function nulResult(sql: string): Row[] {
  if (/^\s*INSERT\b/i.test(sql)) throw new TypeError('PostgreSQL text cannot contain U+0000');
  return [];
}

function mapError(err: unknown): unknown {
  const pgError = err as { code?: unknown; constraint?: unknown };
  if (err instanceof Error && pgError.code === '23505') {
    return new StoreConflictError(UNIQUE_FIELDS[String(pgError.constraint)] ?? 'unique value');
  }
  return err;
}

/** A PostgreSQL-backed {@link Store}. Create with {@link openPostgresStore}. */
class PostgresStore implements Store {
  readonly driver = 'postgres';
  readonly multiNode = true;
  readonly #url: string;
  readonly #pool: pg.Pool;
  readonly #onError: (err: Error) => void;
  readonly #keyListeners = new Set<() => void>();
  #listener: pg.Client | undefined;
  #listenerSchema: string | undefined;
  #reconnectTimer: NodeJS.Timeout | undefined;
  #reconnectDelay = 250;
  #closed = false;
  readonly #names = new Map<string, string>();
  #generation = 0;

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

  constructor(
    url: string,
    options: Required<Omit<PostgresStoreOptions, 'onError'>>,
    onError: (err: Error) => void,
  ) {
    this.#url = url;
    this.#onError = onError;
    this.#pool = new pg.Pool({
      connectionString: url,
      max: options.poolSize,
      connectionTimeoutMillis: options.connectionTimeout,
      idleTimeoutMillis: options.idleTimeout,
      application_name: 'gatehouse-issuer',
    });
    // An idle connection that breaks (server restart, network) is dropped by the pool; never crash.
    this.#pool.on('error', (err) => this.#onError(err));
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

  /**
   * A named prepared statement for `sql`: each connection parses and plans it once, then only binds
   * and executes (the SQL texts are a fixed set, dynamic ones included). A new generation of names is
   * taken when a migration by another process changed a table under a plan.
   */
  #statement(sql: string, values: readonly unknown[]): pg.QueryConfig {
    let name = this.#names.get(sql);
    if (name === undefined && this.#names.size < MAX_PREPARED) {
      name = `gatehouse_${this.#generation}_${this.#names.size}`;
      this.#names.set(sql, name);
    }
    return name === undefined ? { text: sql, values: [...values] } : { name, text: sql, values: [...values] };
  }

  async #run(sql: string, params: readonly unknown[], on: Queryable): Promise<pg.QueryResult> {
    try {
      return await on.query(this.#statement(sql, params));
    } catch (err) {
      if ((err as { code?: unknown }).code !== PLAN_CHANGED) throw mapError(err);
      this.#generation++;
      this.#names.clear();
      try {
        return await on.query(this.#statement(sql, params));
      } catch (retryError) {
        throw mapError(retryError);
      }
    }
  }

  async #query(sql: string, params: readonly unknown[] = [], on: Queryable = this.#pool): Promise<Row[]> {
    if (params.some(hasNul)) return nulResult(sql);
    return (await this.#run(sql, params, on)).rows as Row[];
  }

  async #one(sql: string, params: readonly unknown[] = [], on?: Queryable): Promise<Row | undefined> {
    return (await this.#query(sql, params, on))[0];
  }

  async #count(sql: string, params: readonly unknown[] = [], on: Queryable = this.#pool): Promise<number> {
    if (params.some(hasNul)) return nulResult(sql).length;
    return (await this.#run(sql, params, on)).rowCount ?? 0;
  }

  /** Run `fn` in a transaction on one connection; a connection left in doubt is discarded. */
  async #transaction<T>(fn: (client: Client) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => {
        broken = rollbackError;
      });
      throw err;
    } finally {
      client.release(broken);
    }
  }

  async #page<T>(table: string, map: (row: Row) => T, page: PageRequest): Promise<Page<T>> {
    const total = num((await this.#one(`SELECT COUNT(*) AS n FROM ${table}`))!.n);
    const rows = await this.#query(
      `SELECT * FROM ${table} ORDER BY created_at, id COLLATE "C" LIMIT $1 OFFSET $2`,
      [page.pageSize, (page.page - 1) * page.pageSize],
    );
    return { items: rows.map(map), page: page.page, pageSize: page.pageSize, total };
  }

  /** `UPDATE table SET a = $1, b = $2, updated_at = $n WHERE id = $m RETURNING *` from defined entries only. */
  async #update(
    table: string,
    id: string,
    columns: Record<string, unknown>,
    now: number,
  ): Promise<Row | undefined> {
    const entries = Object.entries(columns).filter(([, value]) => value !== undefined);
    const sets = [...entries.map(([column]) => column), 'updated_at']
      .map((column, index) => `${column} = $${index + 1}`)
      .join(', ');
    return this.#one(`UPDATE ${table} SET ${sets} WHERE id = $${entries.length + 2} RETURNING *`, [
      ...entries.map(([, value]) => value),
      now,
      id,
    ]);
  }

  async migrate(): Promise<MigrationResult> {
    const client = await this.#pool.connect();
    let broken: Error | undefined;
    try {
      await client.query(`SELECT pg_advisory_lock(${LOCK_KEY})`, ['migrate']);
      try {
        await client.query(
          'CREATE TABLE IF NOT EXISTS schema_migrations (version TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)',
        );
        const done = new Set(
          (await client.query('SELECT version FROM schema_migrations')).rows.map((row) =>
            String(row.version),
          ),
        );
        const applied: string[] = [];
        for (const migration of MIGRATIONS) {
          if (done.has(migration.version)) continue;
          try {
            await client.query('BEGIN');
            await client.query(migration.postgres);
            await client.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [
              migration.version,
              Math.floor(Date.now() / 1000),
            ]);
            await client.query('COMMIT');
          } catch (err) {
            await client.query('ROLLBACK');
            throw err;
          }
          applied.push(migration.version);
        }
        return { applied, current: MIGRATIONS.at(-1)?.version };
      } finally {
        await client.query(`SELECT pg_advisory_unlock(${LOCK_KEY})`, ['migrate']);
      }
    } catch (err) {
      broken = err as Error;
      throw err;
    } finally {
      // A connection whose unlock may not have run must not go back to the pool holding the lock.
      client.release(broken);
    }
  }

  async exclusive<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    let broken: Error | undefined;
    try {
      await client.query(`SELECT pg_advisory_lock(${LOCK_KEY})`, [name]);
      try {
        return await fn();
      } finally {
        await client.query(`SELECT pg_advisory_unlock(${LOCK_KEY})`, [name]);
      }
    } catch (err) {
      broken = err as Error;
      throw err;
    } finally {
      client.release(broken);
    }
  }

  async ping(): Promise<void> {
    await this.#query('SELECT 1');
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#reconnectTimer);
    const listener = this.#listener;
    this.#listener = undefined;
    await listener?.end().catch(() => undefined);
    await this.#pool.end();
  }

  /** Open the LISTEN connection (once per store); on loss, reconnect with backoff and tell every listener. */
  #listen(): void {
    if (this.#listener !== undefined || this.#closed || this.#reconnectTimer !== undefined) return;
    const client = new pg.Client({ connectionString: this.#url, application_name: 'gatehouse-issuer-keys' });
    this.#listener = client;
    let lost = false;
    const onLost = (err?: Error) => {
      if (lost) return;
      lost = true;
      if (err !== undefined) this.#onError(err);
      if (this.#listener === client) this.#listener = undefined;
      client.end().catch(() => undefined);
      if (this.#closed || this.#keyListeners.size === 0) return;
      this.#reconnectTimer = setTimeout(() => {
        this.#reconnectTimer = undefined;
        this.#listen();
      }, this.#reconnectDelay);
      this.#reconnectTimer.unref();
      this.#reconnectDelay = Math.min(this.#reconnectDelay * 2, MAX_RECONNECT_DELAY_MS);
    };
    client.on('error', onLost);
    client.on('end', () => onLost());
    client.on('notification', (message) => {
      if (message.channel === KEYS_CHANNEL && message.payload === this.#listenerSchema) this.#keysChanged();
    });
    client
      .connect()
      .then(async () => {
        const schema = await client.query('SELECT current_schema() AS schema');
        this.#listenerSchema = String(schema.rows[0]?.schema ?? '');
        await client.query(`LISTEN ${KEYS_CHANNEL}`);
        this.#reconnectDelay = 250;
        // Changes made before LISTEN took effect (or while the connection was down) were not
        // announced to us: let every listener re-read once now.
        this.#keysChanged();
      })
      .catch((err: Error) => onLost(err));
  }

  #keysChanged(): void {
    for (const listener of this.#keyListeners) queueMicrotask(listener);
  }

  #userStore(): UserStore {
    return {
      create: async (user, now) =>
        toUser(
          (await this.#one(
            `INSERT INTO users (id, username, username_key, email, email_key, password_hash, suspended, custom_data, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) RETURNING *`,
            [
              user.id,
              user.username,
              lower(user.username),
              user.email ?? null,
              user.email == null ? null : lower(user.email),
              user.passwordHash ?? null,
              user.suspended === true,
              json(user.customData ?? {}),
              now,
            ],
          ))!,
        ),
      get: async (id) => {
        const row = await this.#one('SELECT * FROM users WHERE id = $1', [id]);
        return row && toUser(row);
      },
      findByLogin: async (identifier) => {
        const row = await this.#one(
          'SELECT * FROM users WHERE username_key = $1 OR email_key = $1 ORDER BY (username_key = $1) DESC LIMIT 1',
          [lower(identifier)],
        );
        return row && toUser(row);
      },
      list: (page) => this.#page('users', toUser, page),
      update: async (id, patch, now) => {
        const row = await this.#update(
          'users',
          id,
          {
            username: patch.username,
            username_key: patch.username === undefined ? undefined : lower(patch.username),
            email: patch.email,
            email_key:
              patch.email === undefined ? undefined : patch.email === null ? null : lower(patch.email),
            password_hash: patch.passwordHash,
            suspended: patch.suspended,
            custom_data: patch.customData === undefined ? undefined : json(patch.customData),
          },
          now,
        );
        return row && toUser(row);
      },
      delete: async (id) => (await this.#count('DELETE FROM users WHERE id = $1', [id])) > 0,
    };
  }

  #applicationStore(): ApplicationStore {
    return {
      create: async (app, now) =>
        toApplication(
          (await this.#one(
            `INSERT INTO applications (id, name, type, redirect_uris, post_logout_redirect_uris, secret_hash, token_endpoint_auth_method,
               first_party, token_exchange_enabled, custom_data, secret_updated_at, created_at, updated_at,
               dpop_bound_access_tokens)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12, $13) RETURNING *`,
            [
              app.id,
              app.name,
              app.type,
              json(app.redirectUris ?? []),
              json(app.postLogoutRedirectUris ?? []),
              app.secretHash,
              app.tokenEndpointAuthMethod,
              app.firstParty !== false,
              app.tokenExchangeEnabled === true,
              json(app.customData ?? {}),
              app.secretHash === null ? null : now,
              now,
              app.dpopBoundAccessTokens === true,
            ],
          ))!,
        ),
      get: async (id) => {
        const row = await this.#one('SELECT * FROM applications WHERE id = $1', [id]);
        return row && toApplication(row);
      },
      findByName: async (name) => {
        const row = await this.#one(
          'SELECT * FROM applications WHERE name = $1 ORDER BY created_at, id COLLATE "C" LIMIT 1',
          [name],
        );
        return row && toApplication(row);
      },
      list: (page) => this.#page('applications', toApplication, page),
      update: async (id, patch, now) => {
        const row = await this.#update(
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
            first_party: patch.firstParty,
            token_exchange_enabled: patch.tokenExchangeEnabled,
            dpop_bound_access_tokens: patch.dpopBoundAccessTokens,
            custom_data: patch.customData === undefined ? undefined : json(patch.customData),
          },
          now,
        );
        return row && toApplication(row);
      },
      delete: async (id) => (await this.#count('DELETE FROM applications WHERE id = $1', [id])) > 0,
    };
  }

  #resourceStore(): ResourceStore {
    return {
      create: async (resource, now) =>
        toResource(
          (await this.#one(
            `INSERT INTO resources (id, name, indicator, access_token_ttl, system, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING *`,
            [
              resource.id,
              resource.name,
              resource.indicator,
              resource.accessTokenTtl,
              resource.system === true,
              now,
            ],
          ))!,
        ),
      get: async (id) => {
        const row = await this.#one('SELECT * FROM resources WHERE id = $1', [id]);
        return row && toResource(row);
      },
      findByIndicator: async (indicator) => {
        const row = await this.#one('SELECT * FROM resources WHERE indicator = $1', [indicator]);
        return row && toResource(row);
      },
      list: (page) => this.#page('resources', toResource, page),
      update: async (id, patch, now) => {
        const row = await this.#update(
          'resources',
          id,
          { name: patch.name, indicator: patch.indicator, access_token_ttl: patch.accessTokenTtl },
          now,
        );
        return row && toResource(row);
      },
      delete: async (id) => (await this.#count('DELETE FROM resources WHERE id = $1', [id])) > 0,
      createScope: async (scope, now) =>
        toScope(
          (await this.#one(
            'INSERT INTO scopes (id, resource_id, name, description, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING *',
            [scope.id, scope.resourceId, scope.name, scope.description ?? '', now],
          ))!,
        ),
      getScope: async (resourceId, scopeId) => {
        const row = await this.#one('SELECT * FROM scopes WHERE resource_id = $1 AND id = $2', [
          resourceId,
          scopeId,
        ]);
        return row && toScope(row);
      },
      getScopeById: async (scopeId) => {
        const row = await this.#one('SELECT * FROM scopes WHERE id = $1', [scopeId]);
        return row && toScope(row);
      },
      findScope: async (resourceId, name) => {
        const row = await this.#one('SELECT * FROM scopes WHERE resource_id = $1 AND name = $2', [
          resourceId,
          name,
        ]);
        return row && toScope(row);
      },
      listScopes: async (resourceId) =>
        (
          await this.#query('SELECT * FROM scopes WHERE resource_id = $1 ORDER BY name COLLATE "C"', [
            resourceId,
          ])
        ).map(toScope),
      updateScope: async (resourceId, scopeId, description) => {
        const row = await this.#one(
          'UPDATE scopes SET description = $1 WHERE resource_id = $2 AND id = $3 RETURNING *',
          [description, resourceId, scopeId],
        );
        return row && toScope(row);
      },
      deleteScope: async (resourceId, scopeId) =>
        (await this.#count('DELETE FROM scopes WHERE resource_id = $1 AND id = $2', [resourceId, scopeId])) >
        0,
    };
  }

  #roleStore(): RoleStore {
    const holderTable = (holder: RoleHolder): [table: string, column: string, id: string] =>
      'userId' in holder
        ? ['user_roles', 'user_id', holder.userId]
        : ['application_roles', 'application_id', holder.applicationId];
    return {
      create: async (role, now) =>
        toRole(
          (await this.#one(
            `INSERT INTO roles (id, name, description, type, system, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING *`,
            [role.id, role.name, role.description ?? '', role.type, role.system === true, now],
          ))!,
        ),
      get: async (id) => {
        const row = await this.#one('SELECT * FROM roles WHERE id = $1', [id]);
        return row && toRole(row);
      },
      findByName: async (name) => {
        const row = await this.#one('SELECT * FROM roles WHERE name = $1', [name]);
        return row && toRole(row);
      },
      list: (page) => this.#page('roles', toRole, page),
      update: async (id, patch, now) => {
        const row = await this.#update(
          'roles',
          id,
          { name: patch.name, description: patch.description },
          now,
        );
        return row && toRole(row);
      },
      delete: async (id) => (await this.#count('DELETE FROM roles WHERE id = $1', [id])) > 0,
      // One statement each: atomic without a transaction.
      addScopes: async (roleId, scopeIds) => {
        await this.#query(
          `INSERT INTO role_scopes (role_id, scope_id)
           SELECT $1::text, id FROM scopes WHERE id = ANY($2::text[]) ON CONFLICT DO NOTHING`,
          [roleId, [...scopeIds]],
        );
      },
      removeScope: async (roleId, scopeId) =>
        (await this.#count('DELETE FROM role_scopes WHERE role_id = $1 AND scope_id = $2', [
          roleId,
          scopeId,
        ])) > 0,
      listScopes: async (roleId) =>
        (
          await this.#query(
            `SELECT s.*, r.indicator FROM role_scopes rs JOIN scopes s ON s.id = rs.scope_id JOIN resources r ON r.id = s.resource_id
             WHERE rs.role_id = $1 ORDER BY r.indicator COLLATE "C", s.name COLLATE "C"`,
            [roleId],
          )
        ).map((row): RoleScope => ({ ...toScope(row), indicator: String(row.indicator) })),
      assign: async (holder, roleIds) => {
        const [table, column, id] = holderTable(holder);
        await this.#query(
          `INSERT INTO ${table} (${column}, role_id) SELECT $1::text, unnest($2::text[]) ON CONFLICT DO NOTHING`,
          [id, [...roleIds]],
        );
      },
      unassign: async (holder, roleId) => {
        const [table, column, id] = holderTable(holder);
        return (
          (await this.#count(`DELETE FROM ${table} WHERE ${column} = $1 AND role_id = $2`, [id, roleId])) > 0
        );
      },
      listFor: async (holder) => {
        const [table, column, id] = holderTable(holder);
        return (
          await this.#query(
            `SELECT r.* FROM ${table} h JOIN roles r ON r.id = h.role_id WHERE h.${column} = $1 ORDER BY r.name COLLATE "C"`,
            [id],
          )
        ).map(toRole);
      },
      grantedScopes: async (holder, indicator) => {
        const [table, column, id] = holderTable(holder);
        return (
          await this.#query(
            `SELECT DISTINCT s.name COLLATE "C" AS name FROM ${table} h
               JOIN role_scopes rs ON rs.role_id = h.role_id
               JOIN scopes s ON s.id = rs.scope_id
               JOIN resources r ON r.id = s.resource_id
             WHERE h.${column} = $1 AND r.indicator = $2 ORDER BY 1`,
            [id, indicator],
          )
        ).map((row) => String(row.name));
      },
    };
  }

  #keyStore(): SigningKeyStore {
    const insert = (client: Client, key: SigningKeyRecord) =>
      this.#query(
        `INSERT INTO signing_keys (kid, alg, private_jwk, status, created_at, retired_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [key.kid, key.alg, json(key.privateJwk), key.status, key.createdAt, key.retiredAt, key.expiresAt],
        client,
      );
    // Key changes are serialized (a transaction-scoped advisory lock) and announced on commit.
    const lock = (client: Client) =>
      this.#query(`SELECT pg_advisory_xact_lock(${LOCK_KEY})`, ['keys'], client);
    const announce = (client: Client) =>
      this.#query(`SELECT pg_notify('${KEYS_CHANNEL}', coalesce(current_schema(), ''))`, [], client);
    return {
      list: async () =>
        (
          await this.#query(
            `SELECT * FROM signing_keys ORDER BY status = 'active' DESC, created_at DESC, kid COLLATE "C"`,
          )
        ).map(toKey),
      insertInitial: (key) =>
        this.#transaction(async (client) => {
          await lock(client);
          const active = await this.#one(
            "SELECT * FROM signing_keys WHERE status = 'active' ORDER BY created_at DESC LIMIT 1",
            [],
            client,
          );
          if (active !== undefined) return toKey(active);
          await insert(client, { ...key, status: 'active' });
          await announce(client);
          return toKey((await this.#one('SELECT * FROM signing_keys WHERE kid = $1', [key.kid], client))!);
        }),
      rotate: (key, now, expiresAt) =>
        this.#transaction(async (client) => {
          await lock(client);
          await this.#query(
            "UPDATE signing_keys SET status = 'retired', retired_at = $1, expires_at = $2 WHERE status = 'active'",
            [now, expiresAt],
            client,
          );
          await insert(client, { ...key, status: 'active', retiredAt: null, expiresAt: null });
          await announce(client);
        }),
      purgeExpired: (now) =>
        this.#count("DELETE FROM signing_keys WHERE status = 'retired' AND expires_at <= $1", [now]),
      watch: (listener) => {
        const once = () => listener();
        this.#keyListeners.add(once);
        if (this.#listener !== undefined && this.#reconnectTimer === undefined) queueMicrotask(once);
        this.#listen();
        return () => {
          this.#keyListeners.delete(once);
          if (this.#keyListeners.size === 0) {
            clearTimeout(this.#reconnectTimer);
            this.#reconnectTimer = undefined;
            const listenerClient = this.#listener;
            this.#listener = undefined;
            listenerClient?.end().catch(() => undefined);
          }
        };
      },
    };
  }

  #settingStore(): SettingStore {
    return {
      get: async (key) => {
        const row = await this.#one('SELECT value FROM settings WHERE key = $1', [key]);
        return row === undefined ? undefined : String(row.value);
      },
      setIfAbsent: async (key, value) => {
        await this.#query('INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [
          key,
          value,
        ]);
        return String((await this.#one('SELECT value FROM settings WHERE key = $1', [key]))!.value);
      },
      set: async (key, value) => {
        await this.#query(
          'INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
          [key, value],
        );
      },
    };
  }

  #payloadStore(): PayloadStore {
    const live = '(expires_at IS NULL OR expires_at > $3)';
    return {
      upsert: async (model, id, payload, expiresAt, index) => {
        await this.#query(
          `INSERT INTO oidc_payloads (model, id, payload, grant_id, uid, user_code, expires_at, consumed_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, NULL)
           ON CONFLICT (model, id) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id, uid = excluded.uid,
             user_code = excluded.user_code, expires_at = excluded.expires_at`,
          [
            model,
            id,
            json(payload),
            index.grantId ?? null,
            index.uid ?? null,
            index.userCode ?? null,
            expiresAt,
          ],
        );
      },
      find: async (model, id, now) => {
        const row = await this.#one(`SELECT * FROM oidc_payloads WHERE model = $1 AND id = $2 AND ${live}`, [
          model,
          id,
          now,
        ]);
        return row && toPayload(row);
      },
      findByUid: async (model, uid, now) => {
        const row = await this.#one(
          `SELECT * FROM oidc_payloads WHERE model = $1 AND uid = $2 AND ${live} LIMIT 1`,
          [model, uid, now],
        );
        return row && toPayload(row);
      },
      findByUserCode: async (model, userCode, now) => {
        const row = await this.#one(
          `SELECT * FROM oidc_payloads WHERE model = $1 AND user_code = $2 AND ${live} LIMIT 1`,
          [model, userCode, now],
        );
        return row && toPayload(row);
      },
      consume: async (model, id, now) =>
        (await this.#count(
          `UPDATE oidc_payloads SET consumed_at = $3 WHERE model = $1 AND id = $2 AND consumed_at IS NULL AND ${live}`,
          [model, id, now],
        )) === 1,
      destroy: async (model, id) => {
        await this.#query('DELETE FROM oidc_payloads WHERE model = $1 AND id = $2', [model, id]);
      },
      revokeByGrantId: async (grantId) => {
        await this.#query('DELETE FROM oidc_payloads WHERE grant_id = $1', [grantId]);
      },
      purgeExpired: (now) =>
        this.#count('DELETE FROM oidc_payloads WHERE expires_at IS NOT NULL AND expires_at <= $1', [now]),
    };
  }

  #subjectTokenStore(): SubjectTokenStore {
    return {
      create: async (token, now) =>
        toSubjectToken(
          (await this.#one(
            `INSERT INTO subject_tokens (id, token_hash, user_id, context, application_id, actor_id, created_by, created_at, expires_at, consumed_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, NULL) RETURNING *`,
            [
              token.id,
              token.tokenHash,
              token.userId,
              json(token.context ?? {}),
              token.applicationId ?? null,
              token.actorId ?? null,
              token.createdBy,
              now,
              token.expiresAt,
            ],
          ))!,
        ),
      consume: async (tokenHash, now) => {
        const row = await this.#one(
          `UPDATE subject_tokens SET consumed_at = $2
           WHERE token_hash = $1 AND consumed_at IS NULL AND expires_at > $2 RETURNING *`,
          [tokenHash, now],
        );
        return row && toSubjectToken(row);
      },
      findByHash: async (tokenHash) => {
        const row = await this.#one('SELECT * FROM subject_tokens WHERE token_hash = $1', [tokenHash]);
        return row && toSubjectToken(row);
      },
      purgeExpired: (before) => this.#count('DELETE FROM subject_tokens WHERE expires_at < $1', [before]),
    };
  }

  #personalAccessTokenStore(): PersonalAccessTokenStore {
    return {
      create: async (token, now) =>
        toPersonalAccessToken(
          (await this.#one(
            `INSERT INTO personal_access_tokens (id, token_hash, user_id, name, scopes, expires_at, created_at, last_used_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, NULL) RETURNING *`,
            [
              token.id,
              token.tokenHash,
              token.userId,
              token.name,
              token.scopes == null ? null : json(token.scopes),
              token.expiresAt ?? null,
              now,
            ],
          ))!,
        ),
      listFor: async (userId) =>
        (
          await this.#query(
            'SELECT * FROM personal_access_tokens WHERE user_id = $1 ORDER BY created_at, id COLLATE "C"',
            [userId],
          )
        ).map(toPersonalAccessToken),
      findByHash: async (tokenHash) => {
        const row = await this.#one('SELECT * FROM personal_access_tokens WHERE token_hash = $1', [
          tokenHash,
        ]);
        return row && toPersonalAccessToken(row);
      },
      delete: async (userId, id) =>
        (await this.#count('DELETE FROM personal_access_tokens WHERE user_id = $1 AND id = $2', [
          userId,
          id,
        ])) > 0,
      touch: async (id, now) => {
        await this.#query('UPDATE personal_access_tokens SET last_used_at = $2 WHERE id = $1', [id, now]);
      },
    };
  }

  #auditEventStore(): AuditEventStore {
    return {
      record: async (event, now) =>
        toAuditEvent(
          (await this.#one(
            `INSERT INTO audit_events (id, type, created_at, application_id, user_id, actor_id, reason, details)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
            [
              event.id,
              event.type,
              now,
              event.applicationId ?? null,
              event.userId ?? null,
              event.actorId ?? null,
              event.reason ?? null,
              json(event.details ?? {}),
            ],
          ))!,
        ),
      list: async (filter, page) => {
        const conditions: string[] = [];
        const params: unknown[] = [];
        const where = (column: string, operator: string, value: unknown) => {
          if (value === undefined) return;
          params.push(value);
          conditions.push(`${column} ${operator} $${params.length}`);
        };
        where('type', '=', filter.type);
        where('user_id', '=', filter.userId);
        where('actor_id', '=', filter.actorId);
        where('application_id', '=', filter.applicationId);
        where('created_at', '>=', filter.since);
        where('created_at', '<=', filter.until);
        const clause = conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`;
        const total = num((await this.#one(`SELECT COUNT(*) AS n FROM audit_events ${clause}`, params))!.n);
        const rows = await this.#query(
          `SELECT * FROM audit_events ${clause} ORDER BY created_at DESC, seq DESC
           LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
          [...params, page.pageSize, (page.page - 1) * page.pageSize],
        );
        return { items: rows.map(toAuditEvent), page: page.page, pageSize: page.pageSize, total };
      },
    };
  }

  #failureCounterStore(): FailureCounterStore {
    return {
      get: async (key, now) => {
        const row = await this.#one(
          'SELECT count, ends_at FROM failure_counters WHERE key = $1 AND ends_at > $2',
          [key, now],
        );
        return row && { count: num(row.count), endsAt: num(row.ends_at) };
      },
      increment: async (key, now, window) => {
        const row = (await this.#one(
          `INSERT INTO failure_counters (key, count, ends_at) VALUES ($1, 1, $2)
           ON CONFLICT (key) DO UPDATE SET
             count = CASE WHEN failure_counters.ends_at <= $3 THEN 1 ELSE failure_counters.count + 1 END,
             ends_at = CASE WHEN failure_counters.ends_at <= $3 THEN excluded.ends_at ELSE failure_counters.ends_at END
           RETURNING count, ends_at`,
          [key, now + window, now],
        ))!;
        return { count: num(row.count), endsAt: num(row.ends_at) };
      },
      purgeExpired: (now) => this.#count('DELETE FROM failure_counters WHERE ends_at <= $1', [now]),
    };
  }
}

/** Whether `database` names a PostgreSQL database (`postgres://` or `postgresql://`). */
export function isPostgresUrl(database: string): boolean {
  return /^postgres(?:ql)?:\/\//i.test(database);
}

/**
 * Open a PostgreSQL store. No connection is made until the first query; call `migrate()` before use
 * (`createIssuer()` and `gatehouse-issuer migrate` do). Several processes may open the same database.
 *
 * @param url - `postgres://user:password@host:5432/database` (libpq parameters such as `sslmode`
 *   and `options` are honoured).
 *
 * @example
 * ```ts
 * import { openPostgresStore } from '@gatehouse/issuer';
 *
 * const store = openPostgresStore(process.env.DATABASE_URL!, { poolSize: 20 });
 * await store.migrate();
 * ```
 */
export function openPostgresStore(url: string, options: PostgresStoreOptions = {}): Store {
  if (typeof url !== 'string' || !isPostgresUrl(url))
    throw new TypeError('"url" must be a postgres:// or postgresql:// URL');
  const integer = (value: number | undefined, option: string, fallback: number, min: number, max: number) => {
    if (value === undefined) return fallback;
    if (!Number.isInteger(value) || value < min || value > max)
      throw new TypeError(`"${option}" must be an integer between ${min} and ${max}`);
    return value;
  };
  if (options.onError !== undefined && typeof options.onError !== 'function')
    throw new TypeError('"onError" must be a function');
  return new PostgresStore(
    url,
    {
      // Two at least: `exclusive()` holds one connection while its function queries on others.
      poolSize: integer(options.poolSize, 'poolSize', DEFAULTS.postgres.poolSize, 2, 1_000),
      connectionTimeout: integer(
        options.connectionTimeout,
        'connectionTimeout',
        DEFAULTS.postgres.connectionTimeout,
        100,
        600_000,
      ),
      idleTimeout: integer(
        options.idleTimeout,
        'idleTimeout',
        DEFAULTS.postgres.idleTimeout,
        1_000,
        3_600_000,
      ),
    },
    options.onError ?? (() => undefined),
  );
}
