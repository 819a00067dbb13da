/**
 * What every Management API schema is built from: the field primitives (ids, names, URIs, scope
 * names, custom data), the two registries the OpenAPI document is generated from, page and list
 * envelopes, and the few schemas several resources share (error, role, scope, role assignment). Each
 * resource's own request and response schemas sit next to its routes (`users.ts`, `roles.ts` …), or
 * in a file beside them where the routes fill one (`application-schemas.ts`).
 * Objects are strict: an unknown field (`id`, `createdAt`, `isAdmin` …) is a 400, so a body can never
 * set what the server owns (catalogue B43).
 *
 * @module
 */
import { z } from 'zod';
import { DEFAULTS } from '../config/defaults.js';
import { ROLE_TYPES } from '../storage/store.js';

/** A timestamp in a response. */
export const isoTime = z.string().meta({ format: 'date-time', description: 'ISO 8601 timestamp' });
export const id = z.string().min(1).max(128);
/** U+0000 is refused in stored text: PostgreSQL cannot hold it, and no name needs it. */
export const noNul = (value: string) => !value.includes('\0');
export const NO_NUL = 'must not contain U+0000';
export const name = z.string().trim().min(1).max(128).refine(noNul, NO_NUL);
export const description = z.string().max(1_024).refine(noNul, NO_NUL);
export const customData = z
  .record(z.string().max(128), z.unknown())
  .refine((value) => Buffer.byteLength(JSON.stringify(value)) <= DEFAULTS.management.maxCustomDataBytes, {
    message: `customData must serialize to at most ${DEFAULTS.management.maxCustomDataBytes} bytes`,
  });

/** A subject token's `context`: integrator-defined keys, at most 4 KB serialized. */
export const subjectContext = z
  .record(z.string().max(128), z.unknown())
  .refine((value) => Buffer.byteLength(JSON.stringify(value)) <= DEFAULTS.subjectTokens.maxContextBytes, {
    message: `context must serialize to at most ${DEFAULTS.subjectTokens.maxContextBytes} bytes`,
  });

/** An ISO 8601 date-time with an offset (`Z` or `±hh:mm`), as a query or body value. */
export const isoInput = z.iso.datetime({ offset: true });

/** Usernames: letters, digits, `.`, `_`, `-`; no `@`, so a username never looks like an email. */
export const username = z
  .string()
  .min(1)
  .max(64)
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]*$/,
    'must start with a letter or digit and contain only letters, digits, ".", "_" and "-"',
  );
export const email = z.email().max(254);

/** An absolute redirect URI without a fragment (matched exactly by oidc-provider). */
export const redirectUri = z
  .string()
  .max(2_048)
  .refine((value) => {
    const url = URL.parse(value);
    return (
      url !== null &&
      url.hash === '' &&
      !/^(?:javascript|data|vbscript|file):$/i.test(url.protocol) &&
      noNul(value)
    );
  }, 'must be an absolute URI without a fragment');

/** An absolute resource indicator without a fragment (RFC 8707 §2). */
export const indicator = z
  .string()
  .max(2_048)
  .refine((value) => {
    const url = URL.parse(value);
    return url !== null && url.hash === '' && !value.includes('#') && noNul(value);
  }, 'must be an absolute URI without a fragment');

/** Scope names: visible ASCII without spaces, quotes or backslashes (RFC 6749 §3.3 scope-token). */
export const scopeName = z
  .string()
  .min(1)
  .max(128)
  .regex(
    /^[\x21\x23-\x5b\x5d-\x7e]+$/,
    'must be a scope-token: visible ASCII without spaces, quotes or backslashes',
  );

/** Pagination query. */
export const pageQuery = z.strictObject({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  pageSize: z.coerce
    .number()
    .int()
    .min(1)
    .max(DEFAULTS.management.maxPageSize)
    .default(DEFAULTS.management.pageSize),
});

/** A list of ids (role or scope assignment). */
export const idList = z.array(id).min(1).max(100);

/** Client ids chosen by an operator (seed files, admin credentials): never with the user-id prefix. */
export const clientId = z
  .string()
  .regex(/^[A-Za-z0-9._~-]{3,128}$/, 'must be 3–128 characters of A-Z, a-z, 0-9, ".", "_", "~" or "-"')
  .refine((value) => !value.startsWith('usr_'), 'must not start with "usr_" (reserved for user ids)');

/** A body that must change something. */
export const atLeastOne = [
  (value: object) => Object.keys(value).length > 0,
  'at least one field is required',
] as const;

/**
 * The registries of one issuer's Management API: named request schemas (rendered with their input
 * shape, defaults optional) and named response schemas. `buildOpenApi()` turns them into components.
 *
 * @example
 * ```ts
 * const { requests } = createRegistries();
 * const body = z.strictObject({ name }).register(requests, { id: 'CreateThing' });
 * ```
 */
export function createRegistries() {
  return { requests: z.registry<{ id: string }>(), responses: z.registry<{ id: string }>() };
}

/** The registries of one issuer. */
export type Registries = ReturnType<typeof createRegistries>;

/**
 * A page envelope of `item`, registered as `id`.
 *
 * @example
 * ```ts
 * const usersPage = page(user, 'UserPage', registries);
 * ```
 */
export function page<T extends z.ZodType>(item: T, id: string, { responses }: Registries) {
  return z
    .object({
      items: z.array(item),
      page: z.number().int(),
      pageSize: z.number().int(),
      total: z.number().int(),
    })
    .register(responses, { id });
}

/**
 * A list envelope (`{ items }`) of `item`, registered as `id`.
 *
 * @example
 * ```ts
 * const scopeList = list(scope, 'ScopeList', registries);
 * ```
 */
export function list<T extends z.ZodType>(item: T, id: string, { responses }: Registries) {
  return z.object({ items: z.array(item) }).register(responses, { id });
}

/**
 * The registries and the schemas several resources use: the error body, a role and a scope (listed
 * by users, applications and roles), and a role assignment body.
 *
 * @example
 * ```ts
 * const shared = buildSharedSchemas();
 * const userSchemas = buildUserSchemas(shared, config);
 * ```
 */
export function buildSharedSchemas() {
  const registries = createRegistries();
  const { requests, responses } = registries;
  const role = z
    .object({
      id,
      name: z.string(),
      description: z.string(),
      type: z.enum(ROLE_TYPES),
      system: z.boolean(),
      createdAt: isoTime,
      updatedAt: isoTime,
    })
    .register(responses, { id: 'Role' });
  return {
    ...registries,
    error: z
      .object({
        code: z.string(),
        message: z.string(),
        issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
      })
      .register(responses, { id: 'Error' }),
    role,
    roleList: list(role, 'RoleList', registries),
    roleIds: z.strictObject({ roleIds: idList }).register(requests, { id: 'RoleIds' }),
    scope: z
      .object({ id, resourceId: z.string(), name: z.string(), description: z.string(), createdAt: isoTime })
      .register(responses, { id: 'Scope' }),
  };
}

/** What {@link buildSharedSchemas} returns: every route module gets it as `deps.schemas`. */
export type SharedSchemas = ReturnType<typeof buildSharedSchemas>;

/**
 * A password as the Management API and seed files accept it: at least `minLength` characters.
 *
 * @example
 * ```ts
 * const body = z.strictObject({ password: password(config.passwords.minLength) });
 * ```
 */
export const password = (minLength: number) => z.string().min(minLength).max(1_024);
