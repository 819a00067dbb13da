/**
 * `/api/resources`: API resources (resource indicator, access-token lifetime, `roles` claim) and their
 * scopes. The Management API's own resource is built in: it cannot be deleted, re-pointed or have its
 * scopes changed.
 *
 * @module
 */
import { z } from 'zod';
import { MAX_ROLES_CLAIM } from '../config/constants.js';
import { ConflictError, NotFoundError } from '../errors.js';
import { newId } from '../internal/ids.js';
import type { ResourceRecord, ScopeRecord, StoreTables } from '../storage/store.js';
import {
  atLeastOne,
  description,
  id,
  indicator,
  isoTime,
  list,
  name,
  page,
  pageQuery,
  type SharedSchemas,
  scopeName,
} from './primitives.js';
import { defineRoute, found, iso, type ManagementDeps, type RouteDef } from './router.js';

/** API view of a resource. */
export function presentResource(resource: ResourceRecord) {
  return {
    id: resource.id,
    name: resource.name,
    indicator: resource.indicator,
    accessTokenTtl: resource.accessTokenTtl,
    system: resource.system,
    rolesClaim: resource.rolesClaim,
    createdAt: iso(resource.createdAt),
    updatedAt: iso(resource.updatedAt),
  };
}

/** API view of a scope. */
export function presentScope(scope: ScopeRecord) {
  return {
    id: scope.id,
    resourceId: scope.resourceId,
    name: scope.name,
    description: scope.description,
    createdAt: iso(scope.createdAt),
  };
}

/**
 * The request and response schemas of `/api/resources` and their scopes.
 *
 * @example
 * ```ts
 * const schemas = buildResourceSchemas(buildSharedSchemas());
 * ```
 */
export function buildResourceSchemas(shared: SharedSchemas) {
  const { requests, responses } = shared;
  const resource = z
    .object({
      id,
      name: z.string(),
      indicator: z.string(),
      accessTokenTtl: z.number().int(),
      system: z.boolean(),
      rolesClaim: z.boolean(),
      createdAt: isoTime,
      updatedAt: isoTime,
    })
    .register(responses, { id: 'Resource' });
  const ttl = z.number().int().min(60).max(86_400);
  const rolesClaim = z
    .boolean()
    .describe(
      `Access tokens for this resource carry a roles claim: the names of the subject's roles (the user's; for client credentials the application's) that hold a scope of this resource. A subject with more than ${MAX_ROLES_CLAIM} such roles gets no token (400 access_denied). Default false.`,
    );
  return {
    ...shared,
    resource,
    resourcesPage: page(resource, 'ResourcePage', shared),
    createResource: z
      .strictObject({ name, indicator, accessTokenTtl: ttl.optional(), rolesClaim: rolesClaim.optional() })
      .register(requests, { id: 'CreateResource' }),
    updateResource: z
      .strictObject({
        name: name.optional(),
        accessTokenTtl: ttl.optional(),
        rolesClaim: rolesClaim.optional(),
      })
      .refine(...atLeastOne)
      .register(requests, { id: 'UpdateResource' }),
    scopeList: list(shared.scope, 'ScopeList', shared),
    createScope: z
      .strictObject({ name: scopeName, description: description.optional() })
      .register(requests, { id: 'CreateScope' }),
    updateScope: z.strictObject({ description }).register(requests, { id: 'UpdateScope' }),
  };
}

/** The resource routes. */
export function resourceRoutes(deps: ManagementDeps): RouteDef[] {
  const schemas = buildResourceSchemas(deps.schemas);
  const read = ['resources:read', 'resources:write'];
  const write = ['resources:write'];
  const tag = 'Resources';
  const load = async (store: StoreTables, id: string) => found(await store.resources.get(id), 'Resource');
  const editable = async (store: StoreTables, id: string) => {
    const resource = await load(store, id);
    if (resource.system)
      throw new ConflictError('The Management API resource is built in and cannot be changed this way');
    return resource;
  };

  return [
    defineRoute({
      method: 'GET',
      path: '/resources',
      summary: 'List API resources',
      tag,
      scopes: read,
      query: pageQuery,
      success: { status: 200, schema: schemas.resourcesPage, description: 'A page of resources' },
      handler: async ({ query, store }) => {
        const page = await store.resources.list(query);
        return { status: 200, body: { ...page, items: page.items.map(presentResource) } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/resources',
      summary: 'Create an API resource',
      tag,
      scopes: write,
      body: schemas.createResource,
      change: { event: 'resource.created' },
      success: { status: 201, schema: schemas.resource, description: 'The new resource' },
      handler: async ({ body, store, describe }) => {
        const resource = await store.resources.create(
          {
            id: newId('resource'),
            name: body.name,
            indicator: body.indicator,
            accessTokenTtl: body.accessTokenTtl ?? deps.config.ttl.accessToken,
            rolesClaim: body.rolesClaim,
          },
          deps.now(),
        );
        describe({ details: { targets: { id: resource.id } } });
        return {
          status: 201,
          body: presentResource(resource),
          headers: { location: `${deps.config.managementAudience}/resources/${resource.id}` },
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/resources/{id}',
      summary: 'Get an API resource',
      tag,
      scopes: read,
      success: { status: 200, schema: schemas.resource, description: 'The resource' },
      handler: async ({ params, store }) => ({
        status: 200,
        body: presentResource(await load(store, params.id!)),
      }),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/resources/{id}',
      summary: 'Update an API resource',
      tag,
      scopes: write,
      body: schemas.updateResource,
      change: { event: 'resource.updated', acts: { resource: 'id' } },
      success: { status: 200, schema: schemas.resource, description: 'The updated resource' },
      handler: async ({ params, body, store }) => {
        const resource = found(await store.resources.update(params.id!, body, deps.now()), 'Resource');
        return { status: 200, body: presentResource(resource) };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/resources/{id}',
      summary: 'Delete an API resource and its scopes',
      tag,
      scopes: write,
      change: { event: 'resource.deleted', acts: { resource: 'id' } },
      success: { status: 204, description: 'Deleted' },
      handler: async ({ params, store }) => {
        await editable(store, params.id!);
        await store.resources.delete(params.id!);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/resources/{id}/scopes',
      summary: "List a resource's scopes",
      tag,
      scopes: read,
      success: { status: 200, schema: schemas.scopeList, description: 'The scopes' },
      handler: async ({ params, store }) => {
        await load(store, params.id!);
        return {
          status: 200,
          body: { items: (await store.resources.listScopes(params.id!)).map(presentScope) },
        };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/resources/{id}/scopes',
      summary: 'Add a scope to a resource',
      tag,
      scopes: write,
      body: schemas.createScope,
      change: { event: 'scope.created', acts: { resource: 'id' } },
      success: { status: 201, schema: schemas.scope, description: 'The new scope' },
      handler: async ({ params, body, store, describe }) => {
        const resource = await editable(store, params.id!);
        const scope = await store.resources.createScope(
          { id: newId('scope'), resourceId: resource.id, name: body.name, description: body.description },
          deps.now(),
        );
        describe({ details: { targets: { id: resource.id, scopeId: scope.id } } });
        return { status: 201, body: presentScope(scope) };
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/resources/{id}/scopes/{scopeId}',
      summary: "Change a scope's description",
      tag,
      scopes: write,
      body: schemas.updateScope,
      change: { event: 'scope.updated', acts: { resource: 'id' } },
      success: { status: 200, schema: schemas.scope, description: 'The updated scope' },
      handler: async ({ params, body, store }) => {
        await load(store, params.id!);
        const scope = found(
          await store.resources.updateScope(params.id!, params.scopeId!, body.description),
          'Scope',
        );
        return { status: 200, body: presentScope(scope) };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/resources/{id}/scopes/{scopeId}',
      summary: 'Delete a scope (and remove it from every role)',
      tag,
      scopes: write,
      change: { event: 'scope.deleted', acts: { resource: 'id' } },
      success: { status: 204, description: 'Deleted' },
      handler: async ({ params, store }) => {
        await editable(store, params.id!);
        if (!(await store.resources.deleteScope(params.id!, params.scopeId!)))
          throw new NotFoundError('Scope not found');
        return { status: 204 };
      },
    }),
  ];
}
