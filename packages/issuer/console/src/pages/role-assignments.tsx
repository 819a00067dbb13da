/** The roles of a user or an M2M application: list, add (roles of the matching type), remove. */
import { useState } from 'preact/hooks';
import { call, type Page } from '../api.js';
import { useHref, useSession } from '../context.js';
import { type Area, can } from '../session.js';
import { ErrorText, Loading, useAction, useApi } from '../ui.js';

/** A role as the API returns it. */
export interface Role {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly type: 'User' | 'MachineToMachine';
  readonly system: boolean;
}

export function RoleAssignments(props: {
  /** `/users/{id}` or `/applications/{id}`. */
  readonly holder: string;
  readonly type: Role['type'];
  readonly area: Area;
}) {
  const session = useSession();
  const href = useHref();
  const write = can(session, props.area, true);
  const { data, error, reload } = useApi<{ items: Role[] }>(session, `${props.holder}/roles`);
  const all = useApi<Page<Role>>(session, write && can(session, 'roles') ? '/roles?pageSize=100' : undefined);
  const [choice, setChoice] = useState('');
  const action = useAction();
  const assigned = new Set((data?.items ?? []).map((role) => role.id));
  const candidates = (all.data?.items ?? []).filter(
    (role) => role.type === props.type && !assigned.has(role.id),
  );
  return (
    <section aria-labelledby="roles-title">
      <h2 id="roles-title">Roles</h2>
      {data === undefined ? (
        <Loading error={error} />
      ) : data.items.length === 0 ? (
        <p class="muted">No roles.</p>
      ) : (
        <ul class="chips" id="assigned-roles">
          {data.items.map((role) => (
            <li key={role.id}>
              <a href={href(`/roles/${encodeURIComponent(role.id)}`)}>{role.name}</a>
              {write ? (
                <button
                  type="button"
                  class="link"
                  aria-label={`Remove role ${role.name}`}
                  onClick={() =>
                    action.run(async () => {
                      await call(session, 'DELETE', `${props.holder}/roles/${encodeURIComponent(role.id)}`);
                      reload();
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
      {write && candidates.length > 0 ? (
        <form
          class="inline"
          onSubmit={async (event) => {
            event.preventDefault();
            if (choice === '') return;
            await action.run(async () => {
              await call(session, 'POST', `${props.holder}/roles`, { roleIds: [choice] });
              setChoice('');
              reload();
            });
          }}
        >
          <label for="add-role">Add a role</label>
          <select
            id="add-role"
            value={choice}
            onChange={(event) => setChoice((event.currentTarget as HTMLSelectElement).value)}
          >
            <option value="">Choose a role…</option>
            {candidates.map((role) => (
              <option key={role.id} value={role.id}>
                {role.name}
              </option>
            ))}
          </select>
          <button type="submit" disabled={action.busy || choice === ''}>
            Add role
          </button>
        </form>
      ) : null}
      <ErrorText error={action.error ?? all.error} />
    </section>
  );
}
