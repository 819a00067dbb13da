/**
 * Users: a searchable list and a create form; one user's page with suspension (disable / enable),
 * password reset, roles, personal access tokens (a new one is shown once, in a dialog), custom data
 * and deletion.
 */
import { useEffect, useState } from 'preact/hooks';
import { call, type Page } from '../api.js';
import { CreateDialog } from '../components/create-dialog.js';
import { CustomDataForm } from '../components/custom-data.js';
import { DeleteButton } from '../components/delete-button.js';
import { type Column, ListPage, ResourceTable } from '../components/resource-table.js';
import { useHref, useSession } from '../context.js';
import { can } from '../session.js';
import { ConfirmDialog, ErrorText, Loading, SecretDialog, useAction, useApi, when } from '../ui.js';
import { RoleAssignments } from './role-assignments.js';

/** A user as the API returns it. */
export interface User {
  readonly id: string;
  readonly username: string;
  readonly email: string | null;
  readonly suspended: boolean;
  readonly customData: Record<string, unknown>;
  readonly createdAt: string;
}

interface Pat {
  readonly id: string;
  readonly name: string;
  readonly scopes: readonly string[] | null;
  readonly expiresAt: string | null;
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
}

function CreateUser(props: { readonly onClose: () => void; readonly onCreated: () => void }) {
  const session = useSession();
  return (
    <CreateDialog
      title="New user"
      id="new-user"
      submit="Create user"
      onClose={props.onClose}
      onDone={props.onCreated}
      action={({ username, email, password }) =>
        call<User>(session, 'POST', '/users', {
          username,
          ...(email ? { email } : {}),
          ...(password ? { password } : {}),
        })
      }
    >
      <label for="new-username">Username</label>
      <input id="new-username" name="username" required autocomplete="off" spellcheck={false} />
      <label for="new-email">Email (optional)</label>
      <input id="new-email" name="email" type="email" autocomplete="off" />
      <label for="new-password">Password (optional)</label>
      <input id="new-password" name="password" type="password" autocomplete="new-password" />
    </CreateDialog>
  );
}

function UserLink({ user }: { readonly user: User }) {
  const href = useHref();
  return <a href={href(`/users/${encodeURIComponent(user.id)}`)}>{user.username}</a>;
}

const COLUMNS: readonly Column<User>[] = [
  { label: 'Username', cell: (user) => <UserLink user={user} /> },
  { label: 'Email', cell: (user) => user.email ?? '—' },
  { label: 'Status', cell: (user) => (user.suspended ? <span class="badge bad">Disabled</span> : 'Active') },
  { label: 'Created', cell: (user) => when(user.createdAt) },
];

/** The list. */
export function UsersPage() {
  const session = useSession();
  const [search, setSearch] = useState('');
  const [query, setQuery] = useState('');
  // The Management API searches (username, email, id); ask once typing pauses.
  useEffect(() => {
    const timer = setTimeout(() => setQuery(search.trim()), 250);
    return () => clearTimeout(timer);
  }, [search]);
  const params = new URLSearchParams({ pageSize: '100', ...(query === '' ? {} : { search: query }) });
  const list = useApi<Page<User>>(session, `/users?${params}`);
  const { data } = list;
  return (
    <ListPage
      name="users"
      singular="user"
      title="Users"
      area="users"
      newLabel="New user"
      list={list}
      columns={COLUMNS}
      onCreated={list.reload}
      empty={query === '' ? 'No users yet.' : 'No user matches this search.'}
      create={(close, created) => <CreateUser onClose={close} onCreated={created} />}
      footer={
        data !== undefined && data.total !== undefined && data.total > data.items.length ? (
          <p class="muted">
            Showing the first {data.items.length} of {data.total} users.
          </p>
        ) : null
      }
    >
      <search>
        <label for="user-search">Search by username, email or id</label>
        <input
          id="user-search"
          type="search"
          value={search}
          onInput={(event) => setSearch((event.currentTarget as HTMLInputElement).value)}
        />
      </search>
    </ListPage>
  );
}

function ResetPassword({ user, onClose }: { readonly user: User; readonly onClose: () => void }) {
  const session = useSession();
  return (
    <CreateDialog
      title={`Reset the password of ${user.username}`}
      id="reset-password"
      submit="Set password"
      onClose={onClose}
      onDone={onClose}
      action={({ password }) =>
        call(session, 'PUT', `/users/${encodeURIComponent(user.id)}/password`, { password })
      }
    >
      <label for="reset-password-value">New password</label>
      <input id="reset-password-value" name="password" type="password" required autocomplete="new-password" />
    </CreateDialog>
  );
}

function CreatePat({
  user,
  onClose,
  onCreated,
}: {
  readonly user: User;
  readonly onClose: () => void;
  readonly onCreated: (value: string) => void;
}) {
  const session = useSession();
  return (
    <CreateDialog<{ value: string }>
      title="New personal access token"
      id="new-pat"
      submit="Create token"
      onClose={onClose}
      onDone={(created) => onCreated(created.value)}
      action={({ name, expiresAt, scopes }) =>
        call<{ value: string }>(
          session,
          'POST',
          `/users/${encodeURIComponent(user.id)}/personal-access-tokens`,
          {
            name,
            ...(expiresAt ? { expiresAt: new Date(expiresAt).toISOString() } : {}),
            ...(scopes?.trim() ? { scopes: scopes.trim().split(/\s+/) } : {}),
          },
        )
      }
    >
      <label for="pat-name">Name</label>
      <input id="pat-name" name="name" required autocomplete="off" />
      <label for="pat-expires">Expires (optional)</label>
      <input id="pat-expires" name="expiresAt" type="datetime-local" />
      <label for="pat-scopes">Scopes, separated by spaces (optional)</label>
      <input id="pat-scopes" name="scopes" autocomplete="off" spellcheck={false} />
    </CreateDialog>
  );
}

const PAT_COLUMNS: readonly Column<Pat>[] = [
  { label: 'Name', cell: (pat) => pat.name },
  { label: 'Scopes', cell: (pat) => pat.scopes?.join(' ') ?? 'Any of the user’s' },
  { label: 'Expires', cell: (pat) => (pat.expiresAt ? when(pat.expiresAt) : 'Never') },
  { label: 'Last used', cell: (pat) => when(pat.lastUsedAt) },
];

function Pats({ user }: { readonly user: User }) {
  const session = useSession();
  const write = can(session, 'users', true);
  const path = `/users/${encodeURIComponent(user.id)}/personal-access-tokens`;
  const { data, error, reload } = useApi<{ items: Pat[] }>(session, path);
  const [creating, setCreating] = useState(false);
  const [secret, setSecret] = useState<string | undefined>(undefined);
  const [revoking, setRevoking] = useState<Pat | undefined>(undefined);
  return (
    <section aria-labelledby="pats-title">
      <div class="title-row">
        <h2 id="pats-title">Personal access tokens</h2>
        {write ? (
          <button type="button" id="new-pat-button" onClick={() => setCreating(true)}>
            New token
          </button>
        ) : null}
      </div>
      {data === undefined ? (
        <Loading error={error} />
      ) : (
        <ResourceTable
          id="pats"
          caption="Personal access tokens"
          empty="None."
          items={data.items}
          columns={PAT_COLUMNS}
          actions={
            write
              ? (pat) => (
                  <button type="button" class="danger small" onClick={() => setRevoking(pat)}>
                    Revoke<span class="visually-hidden"> {pat.name}</span>
                  </button>
                )
              : undefined
          }
        />
      )}
      {creating ? (
        <CreatePat
          user={user}
          onClose={() => setCreating(false)}
          onCreated={(value) => {
            setCreating(false);
            setSecret(value);
            reload();
          }}
        />
      ) : null}
      {secret !== undefined ? (
        <SecretDialog
          title="Personal access token created"
          label="Token"
          value={secret}
          onClose={() => setSecret(undefined)}
        />
      ) : null}
      {revoking !== undefined ? (
        <ConfirmDialog
          title={`Revoke ${revoking.name}?`}
          confirm="Revoke"
          onClose={() => setRevoking(undefined)}
          onConfirm={async () => {
            await call(session, 'DELETE', `${path}/${encodeURIComponent(revoking.id)}`);
            reload();
          }}
        >
          <p>Exchanges of this token stop working at once.</p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}

/** One user. */
export function UserPage({ id }: { readonly id: string }) {
  const session = useSession();
  const href = useHref();
  const write = can(session, 'users', true);
  const { data: user, error, reload } = useApi<User>(session, `/users/${encodeURIComponent(id)}`);
  const action = useAction();
  const [resetting, setResetting] = useState(false);
  if (user === undefined) return <Loading error={error} />;
  return (
    <section aria-labelledby="user-title">
      <p>
        <a href={href('/users')}>← Users</a>
      </p>
      <h1 id="user-title">{user.username}</h1>
      <dl class="facts">
        <div>
          <dt>Id</dt>
          <dd>
            <code>{user.id}</code>
          </dd>
        </div>
        <div>
          <dt>Email</dt>
          <dd>{user.email ?? '—'}</dd>
        </div>
        <div>
          <dt>Status</dt>
          <dd id="user-status">{user.suspended ? 'Disabled' : 'Active'}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>{when(user.createdAt)}</dd>
        </div>
      </dl>
      <p>
        <a href={`${href('/activity')}?userId=${encodeURIComponent(user.id)}`}>Impersonations of this user</a>
        {' · '}
        <a href={`${href('/activity')}?actorId=${encodeURIComponent(user.id)}`}>
          Impersonations by this user
        </a>
      </p>
      {write ? (
        <div class="actions left">
          <button
            type="button"
            id="toggle-suspension"
            class={user.suspended ? '' : 'danger'}
            disabled={action.busy}
            onClick={() =>
              action.run(async () => {
                await call(session, 'PUT', `/users/${encodeURIComponent(user.id)}/suspension`, {
                  suspended: !user.suspended,
                });
                reload();
              })
            }
          >
            {user.suspended ? 'Enable user' : 'Disable user'}
          </button>
          <button
            type="button"
            class="secondary"
            id="reset-password-button"
            onClick={() => setResetting(true)}
          >
            Reset password
          </button>
        </div>
      ) : null}
      <ErrorText error={action.error} />
      <RoleAssignments holder={`/users/${encodeURIComponent(user.id)}`} type="User" area="users" />
      <Pats user={user} />
      <h2>Custom data</h2>
      <CustomDataForm
        path={`/users/${encodeURIComponent(user.id)}`}
        value={user.customData}
        write={write}
        onSaved={reload}
      />
      {write ? (
        <DeleteButton
          noun="user"
          name={user.username}
          path={`/users/${encodeURIComponent(user.id)}`}
          back="/users"
        >
          <p>Their role assignments and personal access tokens go with them.</p>
        </DeleteButton>
      ) : null}
      {resetting ? <ResetPassword user={user} onClose={() => setResetting(false)} /> : null}
    </section>
  );
}
