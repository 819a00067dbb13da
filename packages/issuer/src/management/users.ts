/**
 * `/api/users`: users, their passwords, suspension and role assignment.
 *
 * @module
 */
import { z } from 'zod';
import { NotFoundError, ValidationError } from '../errors.js';
import { newId } from '../internal/ids.js';
import { hashPassword } from '../internal/secrets.js';
import type { RoleRecord, StoreTables, UserRecord } from '../storage/store.js';
import {
  atLeastOne,
  customData,
  email,
  id,
  isoTime,
  page,
  pageQuery,
  password,
  type SharedSchemas,
  username,
} from './primitives.js';
import { defineRoute, found, iso, type ManagementDeps, type RouteDef } from './router.js';

/** API view of a user (never the password hash). */
export function presentUser(user: UserRecord) {
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    suspended: user.suspended,
    customData: user.customData,
    createdAt: iso(user.createdAt),
    updatedAt: iso(user.updatedAt),
  };
}

/** API view of a role. */
export function presentRole(role: RoleRecord) {
  return {
    id: role.id,
    name: role.name,
    description: role.description,
    type: role.type,
    system: role.system,
    createdAt: iso(role.createdAt),
    updatedAt: iso(role.updatedAt),
  };
}

/** Load roles by id, all of `type`; unknown → 404, wrong type → 400. */
export async function loadRoles(
  store: Pick<StoreTables, 'roles'>,
  roleIds: readonly string[],
  type: RoleRecord['type'],
): Promise<RoleRecord[]> {
  const roles: RoleRecord[] = [];
  for (const roleId of new Set(roleIds)) {
    const role = await store.roles.get(roleId);
    if (role === undefined) throw new NotFoundError('Role not found');
    if (role.type !== type) {
      throw new ValidationError(`Only ${type} roles can be assigned here`, [
        { path: 'body.roleIds', message: `contains a role that is not of type ${type}` },
      ]);
    }
    roles.push(role);
  }
  return roles;
}

/**
 * The request and response schemas of `/api/users` (and the shared ones it uses).
 *
 * @example
 * ```ts
 * const schemas = buildUserSchemas(buildSharedSchemas(), config.passwords.minLength);
 * ```
 */
export function buildUserSchemas(shared: SharedSchemas, minPasswordLength: number) {
  const { requests, responses } = shared;
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
  return {
    ...shared,
    user,
    usersPage: page(user, 'UserPage', shared),
    usersQuery: pageQuery.extend({
      search: z
        .string()
        .trim()
        .min(1)
        .max(254)
        .optional()
        .meta({ description: 'Users whose username or email contains this (any case), or whose id it is' }),
    }),
    createUser: z
      .strictObject({
        username,
        email: email.optional(),
        password: password(minPasswordLength).optional(),
        suspended: z.boolean().optional(),
        customData: customData.optional(),
      })
      .register(requests, { id: 'CreateUser' }),
    updateUser: z
      .strictObject({
        username: username.optional(),
        email: email.nullable().optional(),
        customData: customData.optional(),
      })
      .refine(...atLeastOne)
      .register(requests, { id: 'UpdateUser' }),
    setPassword: z
      .strictObject({ password: password(minPasswordLength) })
      .register(requests, { id: 'SetPassword' }),
    setSuspension: z.strictObject({ suspended: z.boolean() }).register(requests, { id: 'SetSuspension' }),
  };
}

/** The user routes. */
export function userRoutes(deps: ManagementDeps): RouteDef[] {
  const schemas = buildUserSchemas(deps.schemas, deps.config.passwords.minLength);
  const read = ['users:read', 'users:write'];
  const write = ['users:write'];
  const tag = 'Users';
  const load = async (store: StoreTables, id: string) => found(await store.users.get(id), 'User');
  const hash = (password: string) => hashPassword(password, deps.config.passwords.scryptCost);

  return [
    defineRoute({
      method: 'GET',
      path: '/users',
      summary: 'List users',
      tag,
      scopes: read,
      query: schemas.usersQuery,
      success: { status: 200, schema: schemas.usersPage, description: 'A page of users' },
      handler: async ({ query, store }) => {
        const { search, ...request } = query;
        const page =
          search === undefined ? await store.users.list(request) : await store.users.search(search, request);
        return { status: 200, body: { ...page, items: page.items.map(presentUser) } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/users',
      summary: 'Create a user',
      tag,
      scopes: write,
      body: schemas.createUser,
      change: { event: 'user.created' },
      success: { status: 201, schema: schemas.user, description: 'The new user' },
      prepare: async ({ body }) => (body.password === undefined ? null : await hash(body.password)),
      handler: async ({ body, store, prepared: passwordHash, describe }) => {
        const user = await store.users.create(
          {
            id: newId('user'),
            username: body.username,
            email: body.email ?? null,
            passwordHash,
            suspended: body.suspended,
            customData: body.customData,
          },
          deps.now(),
        );
        describe({ userId: user.id });
        return {
          status: 201,
          body: presentUser(user),
          headers: { location: `${deps.config.managementAudience}/users/${user.id}` },
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/users/{id}',
      summary: 'Get a user',
      tag,
      scopes: read,
      success: { status: 200, schema: schemas.user, description: 'The user' },
      handler: async ({ params, store }) => ({
        status: 200,
        body: presentUser(await load(store, params.id!)),
      }),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/users/{id}',
      summary: 'Update a user',
      tag,
      scopes: write,
      body: schemas.updateUser,
      change: { event: 'user.updated', acts: { user: 'id' } },
      success: { status: 200, schema: schemas.user, description: 'The updated user' },
      handler: async ({ params, body, store }) => {
        const user = found(await store.users.update(params.id!, body, deps.now()), 'User');
        return { status: 200, body: presentUser(user) };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/users/{id}',
      summary: 'Delete a user',
      tag,
      scopes: write,
      change: { event: 'user.deleted', acts: { user: 'id' }, recentSignIn: 'always' },
      success: { status: 204, description: 'Deleted' },
      handler: async ({ params, store }) => {
        if (!(await store.users.delete(params.id!))) throw new NotFoundError('User not found');
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/users/{id}/password',
      summary: 'Set a user password',
      tag,
      scopes: write,
      body: schemas.setPassword,
      change: { event: 'user.password_set', acts: { user: 'id' } },
      success: { status: 204, description: 'Password set' },
      prepare: async ({ body }) => hash(body.password),
      handler: async ({ params, store, prepared: passwordHash }) => {
        found(await store.users.update(params.id!, { passwordHash }, deps.now()), 'User');
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/users/{id}/suspension',
      summary: 'Suspend or reinstate a user',
      tag,
      scopes: write,
      body: schemas.setSuspension,
      change: { event: 'user.suspension_set', acts: { user: 'id' } },
      success: { status: 200, schema: schemas.user, description: 'The user' },
      handler: async ({ params, body, store, describe }) => {
        describe({ details: { suspended: body.suspended } });
        const user = found(
          await store.users.update(params.id!, { suspended: body.suspended }, deps.now()),
          'User',
        );
        return { status: 200, body: presentUser(user) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/users/{id}/roles',
      summary: "List a user's roles",
      tag,
      scopes: read,
      success: { status: 200, schema: schemas.roleList, description: 'The roles' },
      handler: async ({ params, store }) => {
        await load(store, params.id!);
        const roles = await store.roles.listFor({ userId: params.id! });
        return { status: 200, body: { items: roles.map(presentRole) } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/users/{id}/roles',
      summary: 'Assign user roles',
      tag,
      scopes: write,
      body: schemas.roleIds,
      change: {
        event: 'user.roles_assigned',
        acts: { user: 'id', grantsRoles: true },
        recentSignIn: 'when-granting-management',
      },
      success: { status: 204, description: 'Assigned' },
      handler: async ({ params, body, store }) => {
        await load(store, params.id!);
        const roles = await loadRoles(store, body.roleIds, 'User');
        await store.roles.assign(
          { userId: params.id! },
          roles.map((role) => role.id),
        );
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/users/{id}/roles/{roleId}',
      summary: 'Remove a role from a user',
      tag,
      scopes: write,
      change: { event: 'user.role_removed', acts: { user: 'id' } },
      success: { status: 204, description: 'Removed' },
      handler: async ({ params, store }) => {
        if (!(await store.roles.unassign({ userId: params.id! }, params.roleId!)))
          throw new NotFoundError('Role assignment not found');
        return { status: 204 };
      },
    }),
  ];
}
