/**
 * `/api/applications`: OAuth clients. Confidential clients (Traditional, MachineToMachine) get a
 * 256-bit secret shown once at creation and at rotation; only its SHA-256 digest is stored. Public
 * clients (SPA, Native) authenticate with `none` and must use PKCE (always required).
 *
 * @module
 */
import { z } from 'zod';
import { DEFAULTS } from '../config/defaults.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import { newId } from '../internal/ids.js';
import { generateSecret, hashSecret } from '../internal/secrets.js';
import {
  APPLICATION_TYPES,
  type ApplicationRecord,
  type ApplicationType,
  type ClientAuthMethod,
  type StoreTables,
} from '../storage/store.js';
import {
  atLeastOne,
  customData,
  id,
  isoTime,
  name,
  page,
  pageQuery,
  redirectUri,
  type SharedSchemas,
} from './primitives.js';
import { defineRoute, found, iso, isoOrNull, type ManagementDeps, type RouteDef } from './router.js';
import { loadRoles, presentRole } from './users.js';

/** Whether an application type authenticates with a secret. */
export const isConfidential = (type: ApplicationType): boolean =>
  type === 'Traditional' || type === 'MachineToMachine';

/** API view of an application (never the secret digest). */
export function presentApplication(app: ApplicationRecord) {
  return {
    id: app.id,
    clientId: app.id,
    name: app.name,
    type: app.type,
    redirectUris: [...app.redirectUris],
    postLogoutRedirectUris: [...app.postLogoutRedirectUris],
    tokenEndpointAuthMethod: app.tokenEndpointAuthMethod,
    firstParty: app.firstParty,
    tokenExchangeEnabled: app.tokenExchangeEnabled,
    dpopBoundAccessTokens: app.dpopBoundAccessTokens,
    requireActorToken: app.requireActorToken,
    impersonationTokenTtl: app.impersonationTokenTtl ?? DEFAULTS.impersonation.tokenTtl,
    customData: app.customData,
    secretUpdatedAt: isoOrNull(app.secretUpdatedAt),
    createdAt: iso(app.createdAt),
    updatedAt: iso(app.updatedAt),
  };
}

interface ShapeInput {
  readonly type: ApplicationType;
  readonly redirectUris?: readonly string[] | undefined;
  readonly postLogoutRedirectUris?: readonly string[] | undefined;
  readonly tokenEndpointAuthMethod?: ClientAuthMethod | undefined;
}

/** Check the fields that depend on the application type; resolves the auth method. */
export function checkShape(input: ShapeInput): ClientAuthMethod {
  const issues = [];
  if (input.type === 'MachineToMachine') {
    if ((input.redirectUris?.length ?? 0) > 0)
      issues.push({ path: 'body.redirectUris', message: 'must be empty for MachineToMachine applications' });
    if ((input.postLogoutRedirectUris?.length ?? 0) > 0) {
      issues.push({
        path: 'body.postLogoutRedirectUris',
        message: 'must be empty for MachineToMachine applications',
      });
    }
  } else if ((input.redirectUris?.length ?? 0) === 0) {
    issues.push({
      path: 'body.redirectUris',
      message: `at least one redirect URI is required for ${input.type} applications`,
    });
  }
  if (
    !isConfidential(input.type) &&
    input.tokenEndpointAuthMethod !== undefined &&
    input.tokenEndpointAuthMethod !== 'none'
  ) {
    issues.push({
      path: 'body.tokenEndpointAuthMethod',
      message: `${input.type} applications are public clients and use "none"`,
    });
  }
  if (issues.length > 0) throw new ValidationError('Invalid application', issues);
  return isConfidential(input.type) ? (input.tokenEndpointAuthMethod ?? 'client_secret_basic') : 'none';
}

/** `dpopBoundAccessTokens` of a create or update body. */
const dpopBound = z
  .boolean()
  .meta({
    description:
      'Token requests must carry a DPoP proof (RFC 9449 §5.2 dpop_bound_access_tokens); without one they get invalid_request. Default false.',
  })
  .optional();

/** `requireActorToken` of a create or update body. */
const actorRequired = z
  .boolean()
  .meta({
    description:
      'Every impersonation (token exchange of a subject token) by this application must carry an actor token, so every impersonation token it gets names who acts (act); without one: invalid_request. Personal access token exchanges are not impersonations and are unaffected. Default false.',
  })
  .optional();

/**
 * `impersonationTokenTtl` of a create or update body (`null`: back to the default). Exported for the
 * seed file, which accepts the same values.
 *
 * @example
 * ```ts
 * impersonationTtl.parse(600); // 600
 * ```
 */
export const impersonationTtl = z
  .number()
  .int()
  .min(DEFAULTS.impersonation.minTokenTtl)
  .max(DEFAULTS.impersonation.maxTokenTtl)
  .nullable()
  .meta({
    description: `Lifetime in seconds of the access tokens this application gets by impersonation (${DEFAULTS.impersonation.minTokenTtl}–${DEFAULTS.impersonation.maxTokenTtl}; null: the default, ${DEFAULTS.impersonation.tokenTtl}), never longer than the resource's accessTokenTtl.`,
  })
  .optional();

/**
 * The request and response schemas of `/api/applications` (and the shared ones it uses).
 *
 * @example
 * ```ts
 * const schemas = buildApplicationSchemas(buildSharedSchemas());
 * ```
 */
export function buildApplicationSchemas(shared: SharedSchemas) {
  const { requests, responses } = shared;
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
      requireActorToken: z.boolean(),
      impersonationTokenTtl: z
        .number()
        .int()
        .meta({ description: 'Lifetime of its impersonation tokens before the resource cap, in seconds' }),
      customData: z.record(z.string(), z.unknown()),
      secretUpdatedAt: isoTime.nullable(),
      createdAt: isoTime,
      updatedAt: isoTime,
    })
    .register(responses, { id: 'Application' });
  /** What a create and an update body may both set. */
  const settable = {
    redirectUris: z.array(redirectUri).max(20).optional(),
    postLogoutRedirectUris: z.array(redirectUri).max(20).optional(),
    tokenEndpointAuthMethod: authMethod.optional(),
    firstParty: z.boolean().optional(),
    tokenExchangeEnabled: z.boolean().optional(),
    dpopBoundAccessTokens: dpopBound,
    requireActorToken: actorRequired,
    impersonationTokenTtl: impersonationTtl,
    customData: customData.optional(),
  };
  return {
    ...shared,
    application,
    applicationsPage: page(application, 'ApplicationPage', shared),
    applicationWithSecret: application
      .extend({
        clientSecret: z
          .string()
          .meta({ description: 'Shown once; only its SHA-256 digest is stored.' })
          .optional(),
      })
      .register(responses, { id: 'ApplicationWithSecret' }),
    createApplication: z
      .strictObject({ name, type: applicationType, ...settable })
      .register(requests, { id: 'CreateApplication' }),
    updateApplication: z
      .strictObject({ name: name.optional(), ...settable })
      .refine(...atLeastOne)
      .register(requests, { id: 'UpdateApplication' }),
    applicationSecret: z
      .object({ clientId: z.string(), clientSecret: z.string() })
      .register(responses, { id: 'ApplicationSecret' }),
  };
}

/** The application routes. */
export function applicationRoutes(deps: ManagementDeps): RouteDef[] {
  const schemas = buildApplicationSchemas(deps.schemas);
  const read = ['applications:read', 'applications:write'];
  const write = ['applications:write'];
  const tag = 'Applications';
  const load = async (store: StoreTables, id: string) =>
    found(await store.applications.get(id), 'Application');

  return [
    defineRoute({
      method: 'GET',
      path: '/applications',
      summary: 'List applications',
      tag,
      scopes: read,
      query: pageQuery,
      success: { status: 200, schema: schemas.applicationsPage, description: 'A page of applications' },
      handler: async ({ query, store }) => {
        const page = await store.applications.list(query);
        return { status: 200, body: { ...page, items: page.items.map(presentApplication) } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/applications',
      summary: 'Create an application',
      tag,
      scopes: write,
      body: schemas.createApplication,
      change: { event: 'application.created' },
      success: {
        status: 201,
        schema: schemas.applicationWithSecret,
        description: 'The new application, with its secret (shown once)',
      },
      handler: async ({ body, store, describe }) => {
        const method = checkShape(body);
        const secret = method === 'none' ? undefined : generateSecret();
        const draft = {
          id: newId('application'),
          name: body.name,
          type: body.type,
          redirectUris: body.redirectUris ?? [],
          postLogoutRedirectUris: body.postLogoutRedirectUris ?? [],
          secretHash: secret === undefined ? null : hashSecret(secret),
          tokenEndpointAuthMethod: method,
          firstParty: body.firstParty,
          tokenExchangeEnabled: body.tokenExchangeEnabled,
          dpopBoundAccessTokens: body.dpopBoundAccessTokens,
          requireActorToken: body.requireActorToken,
          impersonationTokenTtl: body.impersonationTokenTtl,
          customData: body.customData,
        };
        const now = deps.now();
        await deps.validateApplication({
          ...draft,
          firstParty: draft.firstParty ?? true,
          tokenExchangeEnabled: draft.tokenExchangeEnabled ?? false,
          dpopBoundAccessTokens: draft.dpopBoundAccessTokens ?? false,
          requireActorToken: draft.requireActorToken ?? false,
          impersonationTokenTtl: draft.impersonationTokenTtl ?? null,
          customData: draft.customData ?? {},
          secretUpdatedAt: now,
          createdAt: now,
          updatedAt: now,
        });
        const app = await store.applications.create(draft, now);
        describe({ details: { targets: { id: app.id } } });
        const body201 =
          secret === undefined
            ? presentApplication(app)
            : { ...presentApplication(app), clientSecret: secret };
        return {
          status: 201,
          body: body201,
          headers: { location: `${deps.config.managementAudience}/applications/${app.id}` },
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/applications/{id}',
      summary: 'Get an application',
      tag,
      scopes: read,
      success: { status: 200, schema: schemas.application, description: 'The application' },
      handler: async ({ params, store }) => ({
        status: 200,
        body: presentApplication(await load(store, params.id!)),
      }),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/applications/{id}',
      summary: 'Update an application',
      tag,
      scopes: write,
      body: schemas.updateApplication,
      change: { event: 'application.updated', acts: { application: 'id' } },
      success: { status: 200, schema: schemas.application, description: 'The updated application' },
      handler: async ({ params, body, store }) => {
        const current = await load(store, params.id!);
        const merged = { ...current, ...body };
        const method = checkShape(merged);
        await deps.validateApplication({ ...merged, tokenEndpointAuthMethod: method });
        const app = found(
          await store.applications.update(
            current.id,
            { ...body, tokenEndpointAuthMethod: method },
            deps.now(),
          ),
          'Application',
        );
        return { status: 200, body: presentApplication(app) };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/applications/{id}',
      summary: 'Delete an application',
      tag,
      scopes: write,
      change: { event: 'application.deleted', acts: { application: 'id' }, recentSignIn: 'always' },
      success: { status: 204, description: 'Deleted' },
      handler: async ({ params, auth, store }) => {
        if (params.id === auth.clientId) throw new ConflictError('An application cannot delete itself');
        if (!(await store.applications.delete(params.id!))) throw new NotFoundError('Application not found');
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/applications/{id}/secret',
      summary: 'Rotate the client secret',
      tag,
      scopes: write,
      change: { event: 'application.secret_rotated', acts: { application: 'id', fields: ['secret'] } },
      success: {
        status: 200,
        schema: schemas.applicationSecret,
        description: 'The new secret (shown once); the old one stops working',
      },
      handler: async ({ params, store }) => {
        const app = await load(store, params.id!);
        if (!isConfidential(app.type)) throw new ValidationError(`${app.type} applications have no secret`);
        const secret = generateSecret();
        found(
          await store.applications.update(app.id, { secretHash: hashSecret(secret) }, deps.now()),
          'Application',
        );
        return { status: 200, body: { clientId: app.id, clientSecret: secret } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/applications/{id}/roles',
      summary: "List a machine-to-machine application's roles",
      tag,
      scopes: read,
      success: { status: 200, schema: schemas.roleList, description: 'The roles' },
      handler: async ({ params, store }) => {
        await load(store, params.id!);
        const roles = await store.roles.listFor({ applicationId: params.id! });
        return { status: 200, body: { items: roles.map(presentRole) } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/applications/{id}/roles',
      summary: 'Assign machine-to-machine roles',
      tag,
      scopes: write,
      body: schemas.roleIds,
      change: {
        event: 'application.roles_assigned',
        acts: { application: 'id', grantsRoles: true },
        recentSignIn: 'when-granting-management',
      },
      success: { status: 204, description: 'Assigned' },
      handler: async ({ params, body, store }) => {
        const app = await load(store, params.id!);
        if (app.type !== 'MachineToMachine')
          throw new ValidationError('Roles can only be assigned to MachineToMachine applications');
        const roles = await loadRoles(store, body.roleIds, 'MachineToMachine');
        await store.roles.assign(
          { applicationId: app.id },
          roles.map((role) => role.id),
        );
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/applications/{id}/roles/{roleId}',
      summary: 'Remove a role from an application',
      tag,
      scopes: write,
      change: { event: 'application.role_removed', acts: { application: 'id' } },
      success: { status: 204, description: 'Removed' },
      handler: async ({ params, store }) => {
        if (!(await store.roles.unassign({ applicationId: params.id! }, params.roleId!))) {
          throw new NotFoundError('Role assignment not found');
        }
        return { status: 204 };
      },
    }),
  ];
}
