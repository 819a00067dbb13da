/**
 * `/api/applications`: OAuth clients. Confidential clients (Traditional, MachineToMachine) get a
 * 256-bit secret shown once at creation and at rotation; only its SHA-256 digest is stored. Public
 * clients (SPA, Native) authenticate with `none` and must use PKCE (always required).
 *
 * @module
 */
import { DEFAULTS } from '../config/defaults.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import { newId } from '../internal/ids.js';
import { generateSecret, hashSecret } from '../internal/secrets.js';
import type { ApplicationRecord, ApplicationType, ClientAuthMethod, StoreTables } from '../storage/store.js';
import { buildApplicationSchemas } from './application-schemas.js';
import { pageQuery } from './primitives.js';
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
