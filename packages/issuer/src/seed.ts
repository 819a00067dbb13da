/**
 * Load users, applications, resources and roles from a JSON document, idempotently: entities are
 * matched by natural key (resource indicator, role name, username, client id or application name),
 * created when missing and updated when present. Seeding only adds; it never deletes.
 *
 * @module
 */
import { z } from 'zod';
import { ValidationError } from './errors.js';
import { newId } from './internal/ids.js';
import {
  generateSecret,
  hashPassword,
  hashSecret,
  verifyPassword,
  verifySecret,
} from './internal/secrets.js';
import type { ResolvedConfig } from './issuer-config.js';
import { impersonationTtl } from './management/application-schemas.js';
import { checkShape } from './management/applications.js';
import {
  clientId,
  customData,
  description,
  email,
  indicator,
  name,
  password,
  redirectUri,
  scopeName,
  username,
} from './management/primitives.js';
import { toIssues } from './management/router.js';
import {
  APPLICATION_TYPES,
  type ApplicationRecord,
  ROLE_TYPES,
  type RoleRecord,
  type Store,
} from './storage/store.js';

/**
 * The `seed` file format: resources, roles, users and applications, matched by natural key
 * (indicator, name, username, client id or name) so loading the same file twice changes nothing.
 *
 * @example
 * ```ts
 * const document = buildSeedSchema(config).parse(JSON.parse(text));
 * ```
 */
export function buildSeedSchema(config: Pick<ResolvedConfig, 'passwords'>) {
  return z.strictObject({
    resources: z
      .array(
        z.strictObject({
          name,
          indicator,
          accessTokenTtl: z.number().int().min(60).max(86_400).optional(),
          rolesClaim: z.boolean().optional(),
          scopes: z
            .array(
              z.union([scopeName, z.strictObject({ name: scopeName, description: description.optional() })]),
            )
            .optional(),
        }),
      )
      .optional(),
    roles: z
      .array(
        z.strictObject({
          name,
          description: description.optional(),
          type: z.enum(ROLE_TYPES),
          scopes: z.array(z.strictObject({ resource: indicator, scope: scopeName })).optional(),
        }),
      )
      .optional(),
    users: z
      .array(
        z.strictObject({
          username,
          email: email.optional(),
          password: password(config.passwords.minLength).optional(),
          suspended: z.boolean().optional(),
          customData: customData.optional(),
          roles: z.array(name).optional(),
        }),
      )
      .optional(),
    applications: z
      .array(
        z.strictObject({
          name,
          type: z.enum(APPLICATION_TYPES),
          clientId: clientId.optional(),
          clientSecret: z.string().min(32).max(512).optional(),
          redirectUris: z.array(redirectUri).max(20).optional(),
          postLogoutRedirectUris: z.array(redirectUri).max(20).optional(),
          tokenEndpointAuthMethod: z.enum(['client_secret_basic', 'client_secret_post']).optional(),
          firstParty: z.boolean().optional(),
          tokenExchangeEnabled: z.boolean().optional(),
          dpopBoundAccessTokens: z.boolean().optional(),
          requireActorToken: z.boolean().optional(),
          impersonationTokenTtl: impersonationTtl,
          customData: customData.optional(),
          roles: z.array(name).optional(),
        }),
      )
      .optional(),
  });
}

/**
 * A parsed seed document.
 *
 * @example
 * ```ts
 * const document: SeedDocument = { users: [{ username: 'alice' }] };
 * ```
 */
export type SeedDocument = z.output<ReturnType<typeof buildSeedSchema>>;

/** Counts of what a seed run did. */
export interface SeedCounts {
  created: number;
  updated: number;
}

/** The result of {@link seed}. */
export interface SeedResult {
  readonly resources: SeedCounts;
  readonly roles: SeedCounts;
  readonly users: SeedCounts;
  readonly applications: SeedCounts;
  /** Secrets generated for new confidential applications that had none in the file: shown once. */
  readonly generatedSecrets: ReadonlyArray<{
    readonly name: string;
    readonly clientId: string;
    readonly clientSecret: string;
  }>;
}

/** What {@link seed} needs besides the document. */
export interface SeedDeps {
  readonly store: Store;
  readonly config: ResolvedConfig;
  readonly now: number;
  /** oidc-provider's validation of the resulting client metadata. */
  readonly validateApplication: (app: ApplicationRecord) => Promise<void>;
}

/**
 * Validate a seed document; throws a `ValidationError` listing the problems.
 *
 * @example
 * ```ts
 * const doc = parseSeed(config, JSON.parse(readFileSync('seed.json', 'utf8')));
 * ```
 */
export function parseSeed(config: Pick<ResolvedConfig, 'passwords'>, input: unknown): SeedDocument {
  const result = buildSeedSchema(config).safeParse(input);
  if (!result.success) throw new ValidationError('Invalid seed file', toIssues('seed', result.error));
  return result.data;
}

const count = (): SeedCounts => ({ created: 0, updated: 0 });

/**
 * Apply a seed document.
 *
 * @example
 * ```ts
 * const result = await seed({ store, config, now, validateApplication }, JSON.parse(text));
 * console.log(result.users); // { created: 2, updated: 0 }
 * ```
 */
export async function seed(deps: SeedDeps, input: unknown): Promise<SeedResult> {
  const { store, config, now } = deps;
  const doc = parseSeed(config, input);
  const result = {
    resources: count(),
    roles: count(),
    users: count(),
    applications: count(),
    generatedSecrets: [] as Array<{ name: string; clientId: string; clientSecret: string }>,
  };

  for (const entry of doc.resources ?? []) {
    let resource = await store.resources.findByIndicator(entry.indicator);
    if (resource === undefined) {
      resource = await store.resources.create(
        {
          id: newId('resource'),
          name: entry.name,
          indicator: entry.indicator,
          accessTokenTtl: entry.accessTokenTtl ?? config.ttl.accessToken,
          rolesClaim: entry.rolesClaim,
        },
        now,
      );
      result.resources.created++;
    } else {
      if (resource.system)
        throw new ValidationError(`Resource ${entry.indicator} is built in and cannot be seeded`);
      if (
        resource.name !== entry.name ||
        (entry.accessTokenTtl !== undefined && entry.accessTokenTtl !== resource.accessTokenTtl) ||
        (entry.rolesClaim !== undefined && entry.rolesClaim !== resource.rolesClaim)
      ) {
        await store.resources.update(
          resource.id,
          { name: entry.name, accessTokenTtl: entry.accessTokenTtl, rolesClaim: entry.rolesClaim },
          now,
        );
        result.resources.updated++;
      }
    }
    for (const item of entry.scopes ?? []) {
      const scope = typeof item === 'string' ? { name: item, description: undefined } : item;
      const existing = await store.resources.findScope(resource.id, scope.name);
      if (existing === undefined) {
        await store.resources.createScope(
          { id: newId('scope'), resourceId: resource.id, name: scope.name, description: scope.description },
          now,
        );
      } else if (scope.description !== undefined && scope.description !== existing.description) {
        await store.resources.updateScope(resource.id, existing.id, scope.description);
      }
    }
  }

  for (const entry of doc.roles ?? []) {
    let role = await store.roles.findByName(entry.name);
    if (role === undefined) {
      role = await store.roles.create(
        { id: newId('role'), name: entry.name, description: entry.description, type: entry.type },
        now,
      );
      result.roles.created++;
    } else {
      if (role.type !== entry.type)
        throw new ValidationError(`Role ${entry.name} exists with type ${role.type}`);
      if (entry.description !== undefined && entry.description !== role.description) {
        await store.roles.update(role.id, { description: entry.description }, now);
        result.roles.updated++;
      }
    }
    const scopeIds: string[] = [];
    for (const ref of entry.scopes ?? []) {
      const resource = await store.resources.findByIndicator(ref.resource);
      const scope =
        resource === undefined ? undefined : await store.resources.findScope(resource.id, ref.scope);
      if (scope === undefined)
        throw new ValidationError(`Role ${entry.name}: scope ${ref.scope} of ${ref.resource} does not exist`);
      scopeIds.push(scope.id);
    }
    if (scopeIds.length > 0) await store.roles.addScopes(role.id, scopeIds);
  }

  const rolesNamed = async (names: readonly string[], type: RoleRecord['type'], owner: string) => {
    const ids: string[] = [];
    for (const roleName of names) {
      const role = await store.roles.findByName(roleName);
      if (role === undefined) throw new ValidationError(`${owner}: role ${roleName} does not exist`);
      if (role.type !== type) throw new ValidationError(`${owner}: role ${roleName} is not a ${type} role`);
      ids.push(role.id);
    }
    return ids;
  };

  for (const entry of doc.users ?? []) {
    let user = await store.users.findByLogin(entry.username);
    if (user !== undefined && user.username.toLowerCase() !== entry.username.toLowerCase()) user = undefined;
    const roleIds = await rolesNamed(entry.roles ?? [], 'User', `User ${entry.username}`);
    if (user === undefined) {
      const passwordHash =
        entry.password === undefined ? null : await hashPassword(entry.password, config.passwords.scryptCost);
      user = await store.users.create(
        {
          id: newId('user'),
          username: entry.username,
          email: entry.email ?? null,
          passwordHash,
          suspended: entry.suspended,
          customData: entry.customData,
        },
        now,
      );
      result.users.created++;
    } else {
      const passwordStale =
        entry.password !== undefined &&
        (user.passwordHash === null || !(await verifyPassword(entry.password, user.passwordHash)));
      const changed =
        passwordStale ||
        (entry.email !== undefined && entry.email !== user.email) ||
        (entry.suspended !== undefined && entry.suspended !== user.suspended) ||
        (entry.customData !== undefined &&
          JSON.stringify(entry.customData) !== JSON.stringify(user.customData));
      if (changed) {
        await store.users.update(
          user.id,
          {
            email: entry.email,
            suspended: entry.suspended,
            customData: entry.customData,
            passwordHash: passwordStale
              ? await hashPassword(entry.password!, config.passwords.scryptCost)
              : undefined,
          },
          now,
        );
        result.users.updated++;
      }
    }
    if (roleIds.length > 0) await store.roles.assign({ userId: user.id }, roleIds);
  }

  for (const entry of doc.applications ?? []) {
    const method = checkShape(entry);
    const roleIds = await rolesNamed(entry.roles ?? [], 'MachineToMachine', `Application ${entry.name}`);
    if (roleIds.length > 0 && entry.type !== 'MachineToMachine') {
      throw new ValidationError(
        `Application ${entry.name}: roles can only be assigned to MachineToMachine applications`,
      );
    }
    let app =
      entry.clientId === undefined
        ? await store.applications.findByName(entry.name)
        : await store.applications.get(entry.clientId);
    const fields = {
      name: entry.name,
      redirectUris: entry.redirectUris ?? [],
      postLogoutRedirectUris: entry.postLogoutRedirectUris ?? [],
      tokenEndpointAuthMethod: method,
      firstParty: entry.firstParty ?? true,
      tokenExchangeEnabled: entry.tokenExchangeEnabled ?? false,
      dpopBoundAccessTokens: entry.dpopBoundAccessTokens ?? false,
      requireActorToken: entry.requireActorToken ?? false,
      impersonationTokenTtl: entry.impersonationTokenTtl ?? null,
      customData: entry.customData ?? {},
    };
    if (app === undefined) {
      const generated = method !== 'none' && entry.clientSecret === undefined ? generateSecret() : undefined;
      const secret = method === 'none' ? undefined : (entry.clientSecret ?? generated);
      const draft = {
        id: entry.clientId ?? newId('application'),
        type: entry.type,
        ...fields,
        secretHash: secret === undefined ? null : hashSecret(secret),
      };
      await deps.validateApplication({ ...draft, secretUpdatedAt: now, createdAt: now, updatedAt: now });
      app = await store.applications.create(draft, now);
      if (generated !== undefined)
        result.generatedSecrets.push({ name: app.name, clientId: app.id, clientSecret: generated });
      result.applications.created++;
    } else {
      if (app.type !== entry.type)
        throw new ValidationError(`Application ${entry.name} exists with type ${app.type}`);
      const secretStale =
        entry.clientSecret !== undefined &&
        (app.secretHash === null || !verifySecret(entry.clientSecret, app.secretHash));
      const changed =
        secretStale ||
        Object.entries(fields).some(
          ([key, value]) => JSON.stringify(value) !== JSON.stringify(app![key as keyof ApplicationRecord]),
        );
      if (changed) {
        await deps.validateApplication({ ...app, ...fields });
        await store.applications.update(
          app.id,
          { ...fields, secretHash: secretStale ? hashSecret(entry.clientSecret!) : undefined },
          now,
        );
        result.applications.updated++;
      }
    }
    if (roleIds.length > 0) await store.roles.assign({ applicationId: app.id }, roleIds);
  }

  return result;
}
