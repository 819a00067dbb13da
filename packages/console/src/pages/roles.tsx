/** Roles: list and create (the new role's page opens); one role's page with its scopes (add from any resource, remove), deletion. */
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { call, type Page } from '../api.js';
import { CreateDialog } from '../components/create-dialog.js';
import { DeleteButton } from '../components/delete-button.js';
import { type Column, ListPage } from '../components/resource-table.js';
import { ScopePicker } from '../components/scope-picker.js';
import { useHref, useSession } from '../context.js';
import { can } from '../session.js';
import { Loading, useApi } from '../ui.js';
import type { Resource, Scope } from './resources.js';
import type { Role } from './role-assignments.js';

/** The "New role" dialog; the new role's page opens once it is created (to give it scopes). */
function CreateRole(props: { readonly onClose: () => void }) {
  const session = useSession();
  const href = useHref();
  const { route } = useLocation();
  return (
    <CreateDialog<Role>
      title="New role"
      id="new-role"
      submit="Create role"
      onClose={props.onClose}
      onDone={(role) => route(href(`/roles/${encodeURIComponent(role.id)}`))}
      action={({ name, description, type }) =>
        call<Role>(session, 'POST', '/roles', { name, description: description ?? '', type })
      }
    >
      <label for="role-name">Name</label>
      <input id="role-name" name="name" required autocomplete="off" />
      <label for="role-description">Description</label>
      <input id="role-description" name="description" autocomplete="off" />
      <label for="role-type">Held by</label>
      <select id="role-type" name="type">
        <option value="User">Users</option>
        <option value="MachineToMachine">Machine-to-machine applications</option>
      </select>
    </CreateDialog>
  );
}

function RoleLink({ role }: { readonly role: Role }) {
  const href = useHref();
  return (
    <>
      <a href={href(`/roles/${encodeURIComponent(role.id)}`)}>{role.name}</a>
      {role.system ? <span class="badge"> built-in</span> : null}
    </>
  );
}

const COLUMNS: readonly Column<Role>[] = [
  { label: 'Name', cell: (role) => <RoleLink role={role} /> },
  { label: 'Held by', cell: (role) => (role.type === 'User' ? 'Users' : 'Applications') },
  { label: 'Description', cell: (role) => role.description || '—' },
];

/** The list. */
export function RolesPage() {
  const session = useSession();
  const list = useApi<Page<Role>>(session, '/roles?pageSize=100');
  return (
    <ListPage
      name="roles"
      singular="role"
      title="Roles"
      titleId="roles-page-title"
      area="roles"
      newLabel="New role"
      list={list}
      columns={COLUMNS}
      onCreated={list.reload}
      create={(close) => <CreateRole onClose={close} />}
    />
  );
}

/** Scopes of every resource, for the "add a scope" picker. */
function useAllScopes(enabled: boolean) {
  const session = useSession();
  const resources = useApi<Page<Resource>>(session, enabled ? '/resources?pageSize=100' : undefined);
  const [scopes, setScopes] = useState<(Scope & { indicator: string })[] | undefined>(undefined);
  const [loadedFor, setLoadedFor] = useState<unknown>(undefined);
  if (resources.data !== undefined && loadedFor !== resources.data) {
    setLoadedFor(resources.data);
    Promise.all(
      resources.data.items.map(async (resource) => {
        const list = await call<{ items: Scope[] }>(
          session,
          'GET',
          `/resources/${encodeURIComponent(resource.id)}/scopes`,
        );
        return list.items.map((scope) => ({ ...scope, indicator: resource.indicator }));
      }),
    ).then(
      (all) => setScopes(all.flat()),
      () => setScopes([]),
    );
  }
  return scopes;
}

/** One role. */
export function RolePage({ id }: { readonly id: string }) {
  const session = useSession();
  const href = useHref();
  const path = `/roles/${encodeURIComponent(id)}`;
  const { data: role, error } = useApi<Role>(session, path);
  const scopes = useApi<{ items: (Scope & { indicator: string })[] }>(session, `${path}/scopes`);
  const write = can(session, 'roles', true) && role?.system === false;
  const all = useAllScopes(write && can(session, 'resources'));
  if (role === undefined) return <Loading error={error} />;
  const held = new Set((scopes.data?.items ?? []).map((scope) => scope.id));
  return (
    <section aria-labelledby="role-title">
      <p>
        <a href={href('/roles')}>← Roles</a>
      </p>
      <h1 id="role-title">{role.name}</h1>
      <p>
        Held by {role.type === 'User' ? 'users' : 'machine-to-machine applications'}. {role.description}
      </p>
      <h2>Scopes</h2>
      <ScopePicker
        listId="role-scopes"
        selectId="add-scope"
        noun="scope"
        empty="No scopes yet."
        write={write}
        held={scopes.data?.items}
        error={scopes.error}
        chip={(scope) => (
          <>
            <code>{scope.name}</code> <span class="muted">{scope.indicator}</span>
          </>
        )}
        nameOf={(scope) => scope.name}
        candidates={all
          ?.filter((scope) => !held.has(scope.id))
          .map((scope) => ({ id: scope.id, label: `${scope.name} (${scope.indicator})` }))}
        add={(scopeId) => call(session, 'POST', `${path}/scopes`, { scopeIds: [scopeId] })}
        remove={(scope) => call(session, 'DELETE', `${path}/scopes/${encodeURIComponent(scope.id)}`)}
        onChange={scopes.reload}
      />
      {write ? (
        <DeleteButton noun="role" name={role.name} path={path} back="/roles">
          <p>
            Every {role.type === 'User' ? 'user' : 'application'} holding it loses it, and with it these
            scopes in tokens issued from now on.
          </p>
        </DeleteButton>
      ) : null}
    </section>
  );
}
