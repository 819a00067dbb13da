/**
 * `/api/roles`: roles (user roles and machine-to-machine roles) and the resource scopes they hold.
 *
 * @module
 */
import { z } from 'zod';
import { ConflictError, NotFoundError } from '../errors.js';
import { newId } from '../internal/ids.js';
import { ROLE_TYPES, type RoleScope, type StoreTables } from '../storage/store.js';
import {
  atLeastOne,
  description,
  idList,
  list,
  name,
  page,
  pageQuery,
  type SharedSchemas,
} from './primitives.js';
import { presentScope } from './resources.js';
import { defineRoute, found, type ManagementDeps, type RouteDef } from './router.js';
import { presentRole } from './users.js';

/** API view of a scope held by a role. */
export function presentRoleScope(scope: RoleScope) {
  return { ...presentScope(scope), indicator: scope.indicator };
}

/**
 * The request and response schemas of `/api/roles` (the role itself is shared).
 *
 * @example
 * ```ts
 * const schemas = buildRoleSchemas(buildSharedSchemas());
 * ```
 */
export function buildRoleSchemas(shared: SharedSchemas) {
  const { requests, responses } = shared;
  const roleScope = shared.scope.extend({ indicator: z.string() }).register(responses, { id: 'RoleScope' });
  return {
    ...shared,
    rolesPage: page(shared.role, 'RolePage', shared),
    createRole: z
      .strictObject({ name, description: description.optional(), type: z.enum(ROLE_TYPES) })
      .register(requests, { id: 'CreateRole' }),
    updateRole: z
      .strictObject({ name: name.optional(), description: description.optional() })
      .refine(...atLeastOne)
      .register(requests, { id: 'UpdateRole' }),
    roleScope,
    roleScopeList: list(roleScope, 'RoleScopeList', shared),
    scopeIds: z.strictObject({ scopeIds: idList }).register(requests, { id: 'ScopeIds' }),
  };
}

/** The role routes. */
export function roleRoutes(deps: ManagementDeps): RouteDef[] {
  const schemas = buildRoleSchemas(deps.schemas);
  const read = ['roles:read', 'roles:write'];
  const write = ['roles:write'];
  const tag = 'Roles';
  const load = async (store: StoreTables, id: string) => found(await store.roles.get(id), 'Role');

  return [
    defineRoute({
      method: 'GET',
      path: '/roles',
      summary: 'List roles',
      tag,
      scopes: read,
      query: pageQuery,
      success: { status: 200, schema: schemas.rolesPage, description: 'A page of roles' },
      handler: async ({ query, store }) => {
        const page = await store.roles.list(query);
        return { status: 200, body: { ...page, items: page.items.map(presentRole) } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/roles',
      summary: 'Create a role',
      tag,
      scopes: write,
      body: schemas.createRole,
      change: { event: 'role.created' },
      success: { status: 201, schema: schemas.role, description: 'The new role' },
      handler: async ({ body, store, describe }) => {
        const role = await store.roles.create({ id: newId('role'), ...body }, deps.now());
        describe({ details: { targets: { id: role.id } } });
        return {
          status: 201,
          body: presentRole(role),
          headers: { location: `${deps.config.managementAudience}/roles/${role.id}` },
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/roles/{id}',
      summary: 'Get a role',
      tag,
      scopes: read,
      success: { status: 200, schema: schemas.role, description: 'The role' },
      handler: async ({ params, store }) => ({
        status: 200,
        body: presentRole(await load(store, params.id!)),
      }),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/roles/{id}',
      summary: 'Update a role',
      tag,
      scopes: write,
      body: schemas.updateRole,
      change: { event: 'role.updated', acts: { role: 'id' } },
      success: { status: 200, schema: schemas.role, description: 'The updated role' },
      handler: async ({ params, body, store }) => {
        const role = found(await store.roles.update(params.id!, body, deps.now()), 'Role');
        return { status: 200, body: presentRole(role) };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/roles/{id}',
      summary: 'Delete a role',
      tag,
      scopes: write,
      change: { event: 'role.deleted', acts: { role: 'id' } },
      success: { status: 204, description: 'Deleted' },
      handler: async ({ params, store }) => {
        const role = await load(store, params.id!);
        if (role.system)
          throw new ConflictError('The Management API administrator role is built in and cannot be deleted');
        await store.roles.delete(role.id);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/roles/{id}/scopes',
      summary: "List a role's scopes",
      tag,
      scopes: read,
      success: {
        status: 200,
        schema: schemas.roleScopeList,
        description: 'The scopes, with their resource indicator',
      },
      handler: async ({ params, store }) => {
        await load(store, params.id!);
        return {
          status: 200,
          body: { items: (await store.roles.listScopes(params.id!)).map(presentRoleScope) },
        };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/roles/{id}/scopes',
      summary: 'Add scopes to a role',
      tag,
      scopes: write,
      body: schemas.scopeIds,
      change: {
        event: 'role.scopes_added',
        acts: { role: 'id', grantsScopes: true },
        recentSignIn: 'when-granting-management',
      },
      success: { status: 204, description: 'Added' },
      handler: async ({ params, body, store }) => {
        const role = await load(store, params.id!);
        if (role.system)
          throw new ConflictError('The Management API administrator role is built in and cannot be changed');
        const scopeIds = [...new Set(body.scopeIds)];
        for (const scopeId of scopeIds) found(await store.resources.getScopeById(scopeId), 'Scope');
        await store.roles.addScopes(role.id, scopeIds);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/roles/{id}/scopes/{scopeId}',
      summary: 'Remove a scope from a role',
      tag,
      scopes: write,
      change: { event: 'role.scope_removed', acts: { role: 'id' } },
      success: { status: 204, description: 'Removed' },
      handler: async ({ params, store }) => {
        const role = await load(store, params.id!);
        if (role.system)
          throw new ConflictError('The Management API administrator role is built in and cannot be changed');
        if (!(await store.roles.removeScope(role.id, params.scopeId!)))
          throw new NotFoundError('Scope not held by this role');
        return { status: 204 };
      },
    }),
  ];
}
