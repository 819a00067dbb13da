/**
 * Users: a searchable list and a create form; one user's page with suspension (disable / enable),
 * password reset, roles, and personal access tokens (a new one is shown once, in a dialog).
 */
import { useEffect, useState } from 'preact/hooks';
import { call, type Page } from '../api.js';
import { useHref, useSession } from '../context.js';
import { can } from '../session.js';
import {
  ConfirmDialog,
  Dialog,
  ErrorText,
  formValues,
  Loading,
  SecretDialog,
  useAction,
  useApi,
  when,
} from '../ui.js';
import { RoleAssignments } from './role-assignments.js';

/** A user as the API returns it. */
export interface User {
  readonly id: string;
  readonly username: string;
  readonly email: string | null;
  readonly suspended: boolean;
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

function CreateUser({
  onClose,
  onCreated,
}: {
  readonly onClose: () => void;
  readonly onCreated: (user: User) => void;
}) {
  const session = useSession();
  const action = useAction();
  return (
    <Dialog title="New user" onClose={onClose} id="new-user">
      <form
        onSubmit={async (event) => {
          const { username, email, password } = formValues(event);
          let user: User | undefined;
          const ok = await action.run(async () => {
            user = await call<User>(session, 'POST', '/users', {
              username,
              ...(email ? { email } : {}),
              ...(password ? { password } : {}),
            });
          });
          if (ok) onCreated(user!);
        }}
      >
        <label for="new-username">Username</label>
        <input id="new-username" name="username" required autocomplete="off" spellcheck={false} />
        <label for="new-email">Email (optional)</label>
        <input id="new-email" name="email" type="email" autocomplete="off" />
        <label for="new-password">Password (optional)</label>
        <input id="new-password" name="password" type="password" autocomplete="new-password" />
        <ErrorText error={action.error} />
        <div class="actions">
          <button type="button" class="secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" disabled={action.busy}>
            Create user
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** The list. */
export function UsersPage() {
  const session = useSession();
  const href = useHref();
  const [search, setSearch] = useState('');
  const [query, setQuery] = useState('');
  const [creating, setCreating] = useState(false);
  // The Management API searches (username, email, id); ask once typing pauses.
  useEffect(() => {
    const timer = setTimeout(() => setQuery(search.trim()), 250);
    return () => clearTimeout(timer);
  }, [search]);
  const params = new URLSearchParams({ pageSize: '100', ...(query === '' ? {} : { search: query }) });
  const { data, error, reload } = useApi<Page<User>>(session, `/users?${params}`);
  const users = data?.items ?? [];
  return (
    <section aria-labelledby="users-title">
      <div class="title-row">
        <h1 id="users-title">Users</h1>
        {can(session, 'users', true) ? (
          <button type="button" id="new-user-button" onClick={() => setCreating(true)}>
            New user
          </button>
        ) : null}
      </div>
      <search>
        <label for="user-search">Search by username, email or id</label>
        <input
          id="user-search"
          type="search"
          value={search}
          onInput={(event) => setSearch((event.currentTarget as HTMLInputElement).value)}
        />
      </search>
      {data === undefined ? (
        <Loading error={error} />
      ) : (
        <table id="users">
          <caption class="visually-hidden">Users</caption>
          <thead>
            <tr>
              <th scope="col">Username</th>
              <th scope="col">Email</th>
              <th scope="col">Status</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {users.map((user) => (
              <tr key={user.id}>
                <td>
                  <a href={href(`/users/${encodeURIComponent(user.id)}`)}>{user.username}</a>
                </td>
                <td data-label="Email">{user.email ?? '—'}</td>
                <td data-label="Status">
                  {user.suspended ? <span class="badge bad">Disabled</span> : 'Active'}
                </td>
                <td data-label="Created">{when(user.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {data !== undefined && data.total !== undefined && data.total > data.items.length ? (
        <p class="muted">
          Showing the first {data.items.length} of {data.total} users.
        </p>
      ) : null}
      {creating ? (
        <CreateUser
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

function ResetPassword({ user, onClose }: { readonly user: User; readonly onClose: () => void }) {
  const session = useSession();
  const action = useAction();
  return (
    <Dialog title={`Reset the password of ${user.username}`} onClose={onClose} id="reset-password">
      <form
        onSubmit={async (event) => {
          const { password } = formValues(event);
          if (
            await action.run(() =>
              call(session, 'PUT', `/users/${encodeURIComponent(user.id)}/password`, { password }),
            )
          )
            onClose();
        }}
      >
        <label for="reset-password-value">New password</label>
        <input
          id="reset-password-value"
          name="password"
          type="password"
          required
          autocomplete="new-password"
        />
        <ErrorText error={action.error} />
        <div class="actions">
          <button type="button" class="secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" disabled={action.busy}>
            Set password
          </button>
        </div>
      </form>
    </Dialog>
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
  const action = useAction();
  return (
    <Dialog title="New personal access token" onClose={onClose} id="new-pat">
      <form
        onSubmit={async (event) => {
          const { name, expiresAt, scopes } = formValues(event);
          let value = '';
          const ok = await action.run(async () => {
            const created = await call<{ value: string }>(
              session,
              'POST',
              `/users/${encodeURIComponent(user.id)}/personal-access-tokens`,
              {
                name,
                ...(expiresAt ? { expiresAt: new Date(expiresAt).toISOString() } : {}),
                ...(scopes?.trim() ? { scopes: scopes.trim().split(/\s+/) } : {}),
              },
            );
            value = created.value;
          });
          if (ok) onCreated(value);
        }}
      >
        <label for="pat-name">Name</label>
        <input id="pat-name" name="name" required autocomplete="off" />
        <label for="pat-expires">Expires (optional)</label>
        <input id="pat-expires" name="expiresAt" type="datetime-local" />
        <label for="pat-scopes">Scopes, separated by spaces (optional)</label>
        <input id="pat-scopes" name="scopes" autocomplete="off" spellcheck={false} />
        <ErrorText error={action.error} />
        <div class="actions">
          <button type="button" class="secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" disabled={action.busy}>
            Create token
          </button>
        </div>
      </form>
    </Dialog>
  );
}

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
      ) : data.items.length === 0 ? (
        <p class="muted">None.</p>
      ) : (
        <table id="pats">
          <caption class="visually-hidden">Personal access tokens</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Scopes</th>
              <th scope="col">Expires</th>
              <th scope="col">Last used</th>
              {write ? (
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              ) : null}
            </tr>
          </thead>
          <tbody>
            {data.items.map((pat) => (
              <tr key={pat.id}>
                <td>{pat.name}</td>
                <td data-label="Scopes">{pat.scopes?.join(' ') ?? 'Any of the user’s'}</td>
                <td data-label="Expires">{pat.expiresAt ? when(pat.expiresAt) : 'Never'}</td>
                <td data-label="Last used">{when(pat.lastUsedAt)}</td>
                {write ? (
                  <td>
                    <button type="button" class="danger small" onClick={() => setRevoking(pat)}>
                      Revoke<span class="visually-hidden"> {pat.name}</span>
                    </button>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
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
      {resetting ? <ResetPassword user={user} onClose={() => setResetting(false)} /> : null}
    </section>
  );
}
