/**
 * Every Management API request and response schema, in one place. Objects are strict: an unknown
 * field (`id`, `createdAt`, `isAdmin` …) is a 400, so a body can never set what the server owns
 * (catalogue B43). The OpenAPI document is generated from these same schemas.
 *
 * @module
 */
import { z } from 'zod';
import { DEFAULTS } from '../config/defaults.js';
import type { ResolvedConfig } from '../config/schema.js';
import { APPLICATION_TYPES, AUDIT_EVENT_TYPES, ROLE_TYPES } from '../storage/store.js';

/** Largest `customData` document, serialized, in bytes. */
export const MAX_CUSTOM_DATA_BYTES = 4_096;

const isoTime = z.string().meta({ format: 'date-time', description: 'ISO 8601 timestamp' });
const id = z.string().min(1).max(128);
/** U+0000 is refused in stored text: PostgreSQL cannot hold it, and no name needs it. */
const noNul = (value: string) => !value.includes('\0');
const NO_NUL = 'must not contain U+0000';
const name = z.string().trim().min(1).max(128).refine(noNul, NO_NUL);
const description = z.string().max(1_024).refine(noNul, NO_NUL);
const customData = z
  .record(z.string().max(128), z.unknown())
  .refine((value) => Buffer.byteLength(JSON.stringify(value)) <= MAX_CUSTOM_DATA_BYTES, {
    message: `customData must serialize to at most ${MAX_CUSTOM_DATA_BYTES} bytes`,
  });

/** A subject token's `context`: integrator-defined keys, at most 4 KB serialized. */
const subjectContext = z
  .record(z.string().max(128), z.unknown())
  .refine((value) => Buffer.byteLength(JSON.stringify(value)) <= DEFAULTS.subjectTokens.maxContextBytes, {
    message: `context must serialize to at most ${DEFAULTS.subjectTokens.maxContextBytes} bytes`,
  });

/** An ISO 8601 date-time with an offset (`Z` or `±hh:mm`), as a query or body value. */
const isoInput = z.iso.datetime({ offset: true });

/** Usernames: letters, digits, `.`, `_`, `-`; no `@`, so a username never looks like an email. */
const username = z
  .string()
  .min(1)
  .max(64)
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]*$/,
    'must start with a letter or digit and contain only letters, digits, ".", "_" and "-"',
  );
const email = z.email().max(254);

/** An absolute redirect URI without a fragment (matched exactly by oidc-provider). */
const redirectUri = z
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
const indicator = z
  .string()
  .max(2_048)
  .refine((value) => {
    const url = URL.parse(value);
    return url !== null && url.hash === '' && !value.includes('#') && noNul(value);
  }, 'must be an absolute URI without a fragment');

/** Scope names: visible ASCII without spaces, quotes or backslashes (RFC 6749 §3.3 scope-token). */
const scopeName = z
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
const idList = z.array(id).min(1).max(100);

/** Client ids chosen by an operator (seed files, admin credentials): never with the user-id prefix. */
const clientId = z
  .string()
  .regex(/^[A-Za-z0-9._~-]{3,128}$/, 'must be 3–128 characters of A-Z, a-z, 0-9, ".", "_", "~" or "-"')
  .refine((value) => !value.startsWith('usr_'), 'must not start with "usr_" (reserved for user ids)');

/**
 * The `seed` file format: resources, roles, users and applications, matched by natural key
 * (indicator, name, username, client id or name) so loading the same file twice changes nothing.
 */
export function buildSeedSchema(config: Pick<ResolvedConfig, 'passwords'>) {
  const password = z.string().min(config.passwords.minLength).max(1_024);
  return z.strictObject({
    resources: z
      .array(
        z.strictObject({
          name,
          indicator,
          accessTokenTtl: z.number().int().min(60).max(86_400).optional(),
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
          password: password.optional(),
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
          customData: customData.optional(),
          roles: z.array(name).optional(),
        }),
      )
      .optional(),
  });
}

/** A parsed seed document. */
export type SeedDocument = z.output<ReturnType<typeof buildSeedSchema>>;

/** Build every schema; password length depends on configuration. */
export function buildSchemas(config: Pick<ResolvedConfig, 'passwords'>) {
  /** Named request schemas (rendered with their input shape, defaults optional). */
  const requests = z.registry<{ id: string }>();
  /** Named response schemas. */
  const responses = z.registry<{ id: string }>();
  const password = z.string().min(config.passwords.minLength).max(1_024);

  const user = z
    .object({
      id,
      username: z.string(),
      email: z.string().nullable(),
      suspended: z.boolean(),
      customData: z.record(z.string(), z.unknown()),
      createdAt: isoTime,
      updatedAt: isoTime,
    })
    .register(responses, { id: 'User' });
  const createUser = z
    .strictObject({
      username,
      email: email.optional(),
      password: password.optional(),
      suspended: z.boolean().optional(),
      customData: customData.optional(),
    })
    .register(requests, { id: 'CreateUser' });
  const updateUser = z
    .strictObject({
      username: username.optional(),
      email: email.nullable().optional(),
      customData: customData.optional(),
    })
    .refine((value) => Object.keys(value).length > 0, 'at least one field is required')
    .register(requests, { id: 'UpdateUser' });
  const usersQuery = pageQuery.extend({
    search: z
      .string()
      .trim()
      .min(1)
      .max(254)
      .optional()
      .meta({ description: 'Users whose username or email contains this (any case), or whose id it is' }),
  });
  const setPassword = z.strictObject({ password }).register(requests, { id: 'SetPassword' });
  const setSuspension = z
    .strictObject({ suspended: z.boolean() })
    .register(requests, { id: 'SetSuspension' });
  const roleIds = z.strictObject({ roleIds: idList }).register(requests, { id: 'RoleIds' });

  const applicationType = z.enum(APPLICATION_TYPES);
  const authMethod = z.enum(['client_secret_basic', 'client_secret_post']);
  const application = z
    .object({
      id,
      clientId: z.string(),
      name: z.string(),
      type: applicationType,
      redirectUris: z.array(z.string()),
      postLogoutRedirectUris: z.array(z.string()),
      tokenEndpointAuthMethod: z.enum(['client_secret_basic', 'client_secret_post', 'none']),
      firstParty: z.boolean(),
      tokenExchangeEnabled: z.boolean(),
      dpopBoundAccessTokens: z.boolean(),
      customData: z.record(z.string(), z.unknown()),
      secretUpdatedAt: isoTime.nullable(),
      createdAt: isoTime,
      updatedAt: isoTime,
    })
    .register(responses, { id: 'Application' });
  const applicationWithSecret = application
    .extend({
      clientSecret: z
        .string()
        .meta({ description: 'Shown once; only its SHA-256 digest is stored.' })
        .optional(),
    })
    .register(responses, { id: 'ApplicationWithSecret' });
  const createApplication = z
    .strictObject({
      name,
      type: applicationType,
      redirectUris: z.array(redirectUri).max(20).optional(),
      postLogoutRedirectUris: z.array(redirectUri).max(20).optional(),
      tokenEndpointAuthMethod: authMethod.optional(),
      firstParty: z.boolean().optional(),
      tokenExchangeEnabled: z.boolean().optional(),
      dpopBoundAccessTokens: z
        .boolean()
        .meta({
          description:
            'Token requests must carry a DPoP proof (RFC 9449 §5.2 dpop_bound_access_tokens); without one they get invalid_request. Default false.',
        })
        .optional(),
      customData: customData.optional(),
    })
    .register(requests, { id: 'CreateApplication' });
  const updateApplication = z
    .strictObject({
      name: name.optional(),
      redirectUris: z.array(redirectUri).max(20).optional(),
      postLogoutRedirectUris: z.array(redirectUri).max(20).optional(),
      tokenEndpointAuthMethod: authMethod.optional(),
      firstParty: z.boolean().optional(),
      tokenExchangeEnabled: z.boolean().optional(),
      dpopBoundAccessTokens: z
        .boolean()
        .meta({
          description:
            'Token requests must carry a DPoP proof (RFC 9449 §5.2 dpop_bound_access_tokens); without one they get invalid_request. Default false.',
        })
        .optional(),
      customData: customData.optional(),
    })
    .refine((value) => Object.keys(value).length > 0, 'at least one field is required')
    .register(requests, { id: 'UpdateApplication' });
  const applicationSecret = z
    .object({ clientId: z.string(), clientSecret: z.string() })
    .register(responses, { id: 'ApplicationSecret' });

  const resource = z
    .object({
      id,
      name: z.string(),
      indicator: z.string(),
      accessTokenTtl: z.number().int(),
      system: z.boolean(),
      createdAt: isoTime,
      updatedAt: isoTime,
    })
    .register(responses, { id: 'Resource' });
  const ttl = z.number().int().min(60).max(86_400);
  const createResource = z
    .strictObject({ name, indicator, accessTokenTtl: ttl.optional() })
    .register(requests, { id: 'CreateResource' });
  const updateResource = z
    .strictObject({ name: name.optional(), accessTokenTtl: ttl.optional() })
    .refine((value) => Object.keys(value).length > 0, 'at least one field is required')
    .register(requests, { id: 'UpdateResource' });
  const scope = z
    .object({ id, resourceId: z.string(), name: z.string(), description: z.string(), createdAt: isoTime })
    .register(responses, { id: 'Scope' });
  const createScope = z
    .strictObject({ name: scopeName, description: description.optional() })
    .register(requests, { id: 'CreateScope' });
  const updateScope = z.strictObject({ description }).register(requests, { id: 'UpdateScope' });

  const roleType = z.enum(ROLE_TYPES);
  const role = z
    .object({
      id,
      name: z.string(),
      description: z.string(),
      type: roleType,
      system: z.boolean(),
      createdAt: isoTime,
      updatedAt: isoTime,
    })
    .register(responses, { id: 'Role' });
  const createRole = z
    .strictObject({ name, description: description.optional(), type: roleType })
    .register(requests, { id: 'CreateRole' });
  const updateRole = z
    .strictObject({ name: name.optional(), description: description.optional() })
    .refine((value) => Object.keys(value).length > 0, 'at least one field is required')
    .register(requests, { id: 'UpdateRole' });
  const roleScope = scope.extend({ indicator: z.string() }).register(responses, { id: 'RoleScope' });
  const scopeIds = z.strictObject({ scopeIds: idList }).register(requests, { id: 'ScopeIds' });

  const signingKey = z
    .object({
      kid: z.string(),
      alg: z.string(),
      status: z.enum(['active', 'retired']),
      createdAt: isoTime,
      retiredAt: isoTime.nullable(),
      expiresAt: isoTime.nullable(),
    })
    .register(responses, { id: 'SigningKey' });

  const createSubjectToken = z
    .strictObject({
      userId: id.meta({ description: 'The user to impersonate' }),
      context: subjectContext
        .optional()
        .meta({ description: 'Integrator-defined JSON object (at most 4 KB), handed to getCustomJwtClaims' }),
      applicationId: id.optional().meta({ description: 'Only this application may redeem the token' }),
      actorId: id.optional().meta({ description: 'Redeemable only with an actor token of this user' }),
    })
    .register(requests, { id: 'CreateSubjectToken' });
  const subjectToken = z
    .object({
      subjectToken: z.string().meta({ description: 'Shown once; only its SHA-256 digest is stored.' }),
      expiresIn: z.number().int().meta({ description: 'Seconds until it expires' }),
    })
    .register(responses, { id: 'SubjectToken' });

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
    })
    .register(responses, { id: 'AuditEvent' });
  const auditQuery = pageQuery.extend({
    type: z.enum(AUDIT_EVENT_TYPES).optional(),
    userId: id.optional(),
    actorId: id.optional(),
    applicationId: id.optional(),
    since: isoInput.optional(),
    until: isoInput.optional(),
  });

  const patScopes = z.array(scopeName).min(1).max(100);
  const personalAccessToken = z
    .object({
      id,
      userId: z.string(),
      name: z.string(),
      scopes: z.array(z.string()).nullable(),
      expiresAt: isoTime.nullable(),
      createdAt: isoTime,
      lastUsedAt: isoTime.nullable(),
    })
    .register(responses, { id: 'PersonalAccessToken' });
  const personalAccessTokenWithValue = personalAccessToken
    .extend({
      value: z.string().meta({ description: 'Shown once; only its SHA-256 digest is stored.' }),
    })
    .register(responses, { id: 'PersonalAccessTokenWithValue' });
  const createPersonalAccessToken = z
    .strictObject({
      name,
      expiresAt: isoInput.optional().meta({ description: 'ISO 8601; must be in the future' }),
      scopes: patScopes.optional().meta({
        description: 'Most scopes an exchanged token may carry; the user’s roles still apply',
      }),
    })
    .register(requests, { id: 'CreatePersonalAccessToken' });

  const error = z
    .object({
      code: z.string(),
      message: z.string(),
      issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    })
    .register(responses, { id: 'Error' });

  const page = <T extends z.ZodType>(item: T, title: string) =>
    z
      .object({
        items: z.array(item),
        page: z.number().int(),
        pageSize: z.number().int(),
        total: z.number().int(),
      })
      .register(responses, { id: title });

  return {
    requests,
    responses,
    user,
    createUser,
    updateUser,
    setPassword,
    setSuspension,
    roleIds,
    application,
    applicationWithSecret,
    createApplication,
    updateApplication,
    applicationSecret,
    resource,
    createResource,
    updateResource,
    scope,
    createScope,
    updateScope,
    role,
    createRole,
    updateRole,
    roleScope,
    scopeIds,
    signingKey,
    createSubjectToken,
    subjectToken,
    auditEvent,
    auditQuery,
    auditEventsPage: page(auditEvent, 'AuditEventPage'),
    usersQuery,
    personalAccessToken,
    personalAccessTokenWithValue,
    createPersonalAccessToken,
    personalAccessTokenList: z
      .object({ items: z.array(personalAccessToken) })
      .register(responses, { id: 'PersonalAccessTokenList' }),
    error,
    usersPage: page(user, 'UserPage'),
    applicationsPage: page(application, 'ApplicationPage'),
    resourcesPage: page(resource, 'ResourcePage'),
    rolesPage: page(role, 'RolePage'),
    scopeList: z.object({ items: z.array(scope) }).register(responses, { id: 'ScopeList' }),
    roleList: z.object({ items: z.array(role) }).register(responses, { id: 'RoleList' }),
    roleScopeList: z.object({ items: z.array(roleScope) }).register(responses, { id: 'RoleScopeList' }),
    signingKeyList: z.object({ items: z.array(signingKey) }).register(responses, { id: 'SigningKeyList' }),
  };
}

/** The schemas of one issuer. */
export type Schemas = ReturnType<typeof buildSchemas>;
