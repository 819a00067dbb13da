/** The roles of a user or an M2M application: list, add (roles of the matching type), remove. */
import { call, type Page } from '../api.js';
import { ScopePicker } from '../components/scope-picker.js';
import { useHref, useSession } from '../context.js';
import { type Area, can } from '../session.js';
import { ErrorText, useApi } from '../ui.js';

/** A role as the API returns it. */
export interface Role {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly type: 'User' | 'MachineToMachine';
  readonly system: boolean;
}

/** The roles section of a user's or an M2M application's page. */
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
  const assigned = new Set((data?.items ?? []).map((role) => role.id));
  return (
    <section aria-labelledby="roles-title">
      <h2 id="roles-title">Roles</h2>
      <ScopePicker
        listId="assigned-roles"
        selectId="add-role"
        noun="role"
        empty="No roles."
        write={write}
        held={data?.items}
        error={error}
        chip={(role) => <a href={href(`/roles/${encodeURIComponent(role.id)}`)}>{role.name}</a>}
        nameOf={(role) => role.name}
        candidates={all.data?.items
          .filter((role) => role.type === props.type && !assigned.has(role.id))
          .map((role) => ({ id: role.id, label: role.name }))}
        add={(roleId) => call(session, 'POST', `${props.holder}/roles`, { roleIds: [roleId] })}
        remove={(role) => call(session, 'DELETE', `${props.holder}/roles/${encodeURIComponent(role.id)}`)}
        onChange={reload}
      />
      <ErrorText error={all.error} />
    </section>
  );
}
