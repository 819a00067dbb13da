/** Roles: list and create; one role's page with its scopes (add from any resource, remove). */
import { useState } from 'preact/hooks';
import { call, type Page } from '../api.js';
import { useHref, useSession } from '../context.js';
import { can } from '../session.js';
import { Dialog, ErrorText, formValues, Loading, useAction, useApi } from '../ui.js';
import type { Resource, Scope } from './resources.js';
import type { Role } from './role-assignments.js';

function CreateRole(props: { readonly onClose: () => void; readonly onCreated: () => void }) {
  const session = useSession();
  const action = useAction();
  return (
    <Dialog title="New role" onClose={props.onClose} id="new-role">
      <form
        onSubmit={async (event) => {
          const { name, description, type } = formValues(event);
          if (
            await action.run(() =>
              call(session, 'POST', '/roles', { name, description: description ?? '', type }),
            )
          )
            props.onCreated();
        }}
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
        <ErrorText error={action.error} />
        <div class="actions">
          <button type="button" class="secondary" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" disabled={action.busy}>
            Create role
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** The list. */
export function RolesPage() {
  const session = useSession();
  const href = useHref();
  const { data, error, reload } = useApi<Page<Role>>(session, '/roles?pageSize=100');
  const [creating, setCreating] = useState(false);
  return (
    <section aria-labelledby="roles-page-title">
      <div class="title-row">
        <h1 id="roles-page-title">Roles</h1>
        {can(session, 'roles', true) ? (
          <button type="button" id="new-role-button" onClick={() => setCreating(true)}>
            New role
          </button>
        ) : null}
      </div>
      {data === undefined ? (
        <Loading error={error} />
      ) : (
        <table id="roles">
          <caption class="visually-hidden">Roles</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Held by</th>
              <th scope="col">Description</th>
            </tr>
          </thead>
          <tbody>
            {data.items.map((role) => (
              <tr key={role.id}>
                <td>
                  <a href={href(`/roles/${encodeURIComponent(role.id)}`)}>{role.name}</a>
                  {role.system ? <span class="badge"> built-in</span> : null}
                </td>
                <td data-label="Held by">{role.type === 'User' ? 'Users' : 'Applications'}</td>
                <td data-label="Description">{role.description || '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {creating ? (
        <CreateRole
          onClose={() => setCreating(false)}
          onCreated={() => {
            setCreating(false);
            reload();
          }}
        />
      ) : null}
    </section>
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
  const [choice, setChoice] = useState('');
  const action = useAction();
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
      {scopes.data === undefined ? (
        <Loading error={scopes.error} />
      ) : scopes.data.items.length === 0 ? (
        <p class="muted">No scopes yet.</p>
      ) : (
        <ul class="chips" id="role-scopes">
          {scopes.data.items.map((scope) => (
            <li key={scope.id}>
              <code>{scope.name}</code> <span class="muted">{scope.indicator}</span>
              {write ? (
                <button
                  type="button"
                  class="link"
                  aria-label={`Remove scope ${scope.name}`}
                  onClick={() =>
                    action.run(async () => {
                      await call(session, 'DELETE', `${path}/scopes/${encodeURIComponent(scope.id)}`);
                      scopes.reload();
                    })
                  }
                >
                  ✕
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      {write && all !== undefined ? (
        <form
          class="inline"
          onSubmit={async (event) => {
            event.preventDefault();
            if (choice === '') return;
            await action.run(async () => {
              await call(session, 'POST', `${path}/scopes`, { scopeIds: [choice] });
              setChoice('');
              scopes.reload();
            });
          }}
        >
          <label for="add-scope">Add a scope</label>
          <select
            id="add-scope"
            value={choice}
            onChange={(event) => setChoice((event.currentTarget as HTMLSelectElement).value)}
          >
            <option value="">Choose a scope…</option>
            {all
              .filter((scope) => !held.has(scope.id))
              .map((scope) => (
                <option key={scope.id} value={scope.id}>
                  {scope.name} ({scope.indicator})
                </option>
              ))}
          </select>
          <button type="submit" disabled={action.busy || choice === ''}>
            Add scope
          </button>
        </form>
      ) : null}
      <ErrorText error={action.error} />
    </section>
  );
}
