/**
 * First-start bootstrap, run on every start and idempotent: the Management API's own resource
 * (`{baseUrl}/api`) with its scopes, the built-in administrator role (scope `all`), and — once, on an
 * empty database — an administrator machine-to-machine application holding that role. Its client id
 * and secret are returned once so the CLI can print them, or taken from `admin.clientId` /
 * `admin.clientSecret` (`GATEHOUSE_ADMIN_CLIENT_ID` / `GATEHOUSE_ADMIN_CLIENT_SECRET`).
 *
 * A generated secret cannot be lost for good: until the administrator application first gets a token
 * the database remembers that its secret was never used (`secretUnused`), so `gatehouse-issuer start`
 * can issue a fresh one on the next start ({@link resetAdminSecret}), and `gatehouse-issuer admin
 * reset-secret` can at any time. Only SHA-256 digests of secrets are stored.
 *
 * @module
 */
import type { Logger } from 'pino';
import { ensureConsole } from './console/bootstrap.js';
import { NoAdministratorError, StoreConflictError } from './errors.js';
import { newId } from './internal/ids.js';
import { generateSecret, hashSecret, verifySecret } from './internal/secrets.js';
import type { ResolvedConfig } from './issuer-config.js';
import { MANAGEMENT_SCOPES } from './management/scopes.js';
import type { ResourceRecord, RoleRecord, Store } from './storage/store.js';

/**
 * Setting keys used by the bootstrap.
 *
 * @example
 * ```ts
 * const adminId = await store.settings.get(SETTING_KEYS.adminApplication);
 * ```
 */
export const SETTING_KEYS = Object.freeze({
  managementResource: 'management.resource_id',
  adminRole: 'management.admin_role_id',
  adminApplication: 'bootstrap.admin_application_id',
  /** `"true"` while the administrator's generated secret has never been used to get a token. */
  adminSecretUnused: 'bootstrap.admin_secret_unused',
  cookieKeys: 'cookie_keys',
});

/**
 * Names of the built-in entities.
 *
 * @example
 * ```ts
 * const role = await store.roles.findByName(BUILT_IN_NAMES.adminRole);
 * ```
 */
export const BUILT_IN_NAMES = Object.freeze({
  managementResource: 'Gatehouse Management API',
  adminRole: 'Management API administrator',
  adminApplication: 'Gatehouse administrator',
});

/**
 * What the bootstrap did.
 *
 * @example
 * ```ts
 * const { adminClientId, adminClientSecret, secretUnused } = await bootstrap(store, config, now);
 * ```
 */
export interface BootstrapResult {
  /** Client id of the administrator application. */
  readonly adminClientId: string;
  /** The generated secret: set only on the start that created it (print it once), never otherwise. */
  readonly adminClientSecret: string | undefined;
  /** Whether the administrator application was created by this start. */
  readonly created: boolean;
  /**
   * Whether the administrator's generated secret has never been used to get a token (the client has
   * not authenticated since it was issued). Always `false` for fixed credentials (`admin.clientSecret`).
   */
  readonly secretUnused: boolean;
  readonly managementResourceId: string;
  readonly adminRoleId: string;
}

async function ensureResource(store: Store, config: ResolvedConfig, now: number): Promise<ResourceRecord> {
  const knownId = await store.settings.get(SETTING_KEYS.managementResource);
  let resource = knownId === undefined ? undefined : await store.resources.get(knownId);
  if (resource === undefined) {
    resource = await store.resources.findByIndicator(config.managementAudience);
    if (resource === undefined || !resource.system) {
      try {
        resource = await store.resources.create(
          {
            id: newId('resource'),
            name: BUILT_IN_NAMES.managementResource,
            indicator: config.managementAudience,
            accessTokenTtl: config.ttl.accessToken,
            system: true,
          },
          now,
        );
      } catch (err) {
        if (err instanceof StoreConflictError) {
          throw new Error(
            `A resource with indicator ${config.managementAudience} exists and is not the built-in Management API resource`,
          );
        }
        throw err;
      }
    }
    await store.settings.set(SETTING_KEYS.managementResource, resource.id);
  } else if (resource.indicator !== config.managementAudience) {
    // The base URL changed: the Management API's audience follows it.
    resource = (await store.resources.update(resource.id, { indicator: config.managementAudience }, now))!;
  }
  for (const scope of MANAGEMENT_SCOPES) {
    if ((await store.resources.findScope(resource.id, scope.name)) === undefined) {
      await store.resources.createScope({ id: newId('scope'), resourceId: resource.id, ...scope }, now);
    }
  }
  return resource;
}

async function ensureRole(store: Store, resource: ResourceRecord, now: number): Promise<RoleRecord> {
  const knownId = await store.settings.get(SETTING_KEYS.adminRole);
  let role = knownId === undefined ? undefined : await store.roles.get(knownId);
  if (role === undefined) {
    role =
      (await store.roles.findByName(BUILT_IN_NAMES.adminRole)) ??
      (await store.roles.create(
        {
          id: newId('role'),
          name: BUILT_IN_NAMES.adminRole,
          type: 'MachineToMachine',
          system: true,
          description: 'Full Management API access',
        },
        now,
      ));
    await store.settings.set(SETTING_KEYS.adminRole, role.id);
  }
  const all = await store.resources.findScope(resource.id, 'all');
  await store.roles.addScopes(role.id, [all!.id]);
  return role;
}

/**
 * Run the bootstrap. Safe to call on every start.
 *
 * @example
 * ```ts
 * const result = await bootstrap(store, config, Math.floor(Date.now() / 1000));
 * if (result.adminClientSecret) console.log(result.adminClientId, result.adminClientSecret);
 * ```
 */
export async function bootstrap(store: Store, config: ResolvedConfig, now: number): Promise<BootstrapResult> {
  const resource = await ensureResource(store, config, now);
  const role = await ensureRole(store, resource, now);
  await ensureConsole(store, config, resource, now);
  const base = { managementResourceId: resource.id, adminRoleId: role.id };

  const existing = await store.settings.get(SETTING_KEYS.adminApplication);
  const { clientId: fixedId, clientSecret: fixedSecret } = config.admin;
  if (existing !== undefined && fixedId === undefined) {
    const secretUnused = (await store.settings.get(SETTING_KEYS.adminSecretUnused)) === 'true';
    return { ...base, adminClientId: existing, adminClientSecret: undefined, created: false, secretUnused };
  }

  const clientId = fixedId ?? newId('application');
  const generated = fixedSecret === undefined ? generateSecret() : undefined;
  const secret = fixedSecret ?? generated!;
  const app = await store.applications.get(clientId);
  let created = false;
  if (app === undefined) {
    await store.applications.create(
      {
        id: clientId,
        name: BUILT_IN_NAMES.adminApplication,
        type: 'MachineToMachine',
        secretHash: hashSecret(secret),
        tokenEndpointAuthMethod: 'client_secret_basic',
      },
      now,
    );
    created = true;
  } else if (app.type !== 'MachineToMachine') {
    throw new Error('"admin.clientId" names an existing application that is not MachineToMachine');
  } else if (app.secretHash === null || !verifySecret(secret, app.secretHash)) {
    await store.applications.update(clientId, { secretHash: hashSecret(secret) }, now);
  }
  await store.roles.assign({ applicationId: clientId }, [role.id]);
  await store.settings.set(SETTING_KEYS.adminApplication, clientId);
  // Fixed credentials are known to whoever set them; a generated secret is unused until its first token.
  const secretUnused = created && generated !== undefined;
  await store.settings.set(SETTING_KEYS.adminSecretUnused, String(secretUnused));
  return {
    ...base,
    adminClientId: clientId,
    adminClientSecret: created ? generated : undefined,
    created,
    secretUnused,
  };
}

/**
 * The administrator application and its new secret.
 *
 * @example
 * ```ts
 * const { clientId, clientSecret }: AdminSecret = await resetAdminSecret(store, now);
 * ```
 */
export interface AdminSecret {
  readonly clientId: string;
  /** The new secret: print it once, never log it. */
  readonly clientSecret: string;
}

/**
 * Give the administrator application a new generated secret; the previous one stops working (tokens
 * already issued with it stay valid until they expire). `unused: true` (a start re-issuing a secret
 * nobody used) keeps the "never used" mark, so the next start may issue another; `false` (an explicit
 * reset, whose output the user asked for) clears it. Throws when there is no administrator application
 * yet.
 *
 * @example
 * ```ts
 * const { clientId, clientSecret } = await resetAdminSecret(store, Math.floor(Date.now() / 1000));
 * process.stderr.write(`${clientId} ${clientSecret}\n`); // shown once
 * ```
 */
export async function resetAdminSecret(
  store: Store,
  now: number,
  options: {
    readonly unused?: boolean;
    /** How to name the database in an error (a path, or a URL without its password). */
    readonly database?: string;
  } = {},
): Promise<AdminSecret> {
  const clientId = await store.settings.get(SETTING_KEYS.adminApplication);
  const app = clientId === undefined ? undefined : await store.applications.get(clientId);
  if (clientId === undefined || app === undefined)
    throw new NoAdministratorError(options.database ?? 'the database');
  const clientSecret = generateSecret();
  await store.applications.update(clientId, { secretHash: hashSecret(clientSecret) }, now);
  await store.settings.set(SETTING_KEYS.adminSecretUnused, String(options.unused === true));
  return { clientId, clientSecret };
}

/**
 * A listener for oidc-provider's `grant.success` that marks the administrator's generated secret as
 * used the first time the administrator application gets a token; from then on no start replaces it.
 * Does nothing when the secret was not unused at start.
 *
 * @example
 * ```ts
 * provider.on('grant.success', markAdminSecretUsed(store, issuer.admin, log));
 * ```
 */
export function markAdminSecretUsed(
  store: Store,
  admin: BootstrapResult,
  log: Logger,
): (ctx: { oidc?: { client?: { clientId?: string } } }) => void {
  let unused = admin.secretUnused;
  return (ctx) => {
    if (!unused || ctx.oidc?.client?.clientId !== admin.adminClientId) return;
    unused = false;
    store.settings.set(SETTING_KEYS.adminSecretUnused, 'false').catch((err) => {
      unused = true;
      log.warn({ event: 'bootstrap.mark_failed', err: { message: (err as Error).message } });
    });
  };
}
