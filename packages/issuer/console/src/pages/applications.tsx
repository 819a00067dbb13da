/**
 * Applications: list and create (a confidential application's secret is shown once); one
 * application's page with its redirect URIs, the token-exchange switch, the DPoP requirement, secret
 * rotation (shown once) and, for machine-to-machine applications, its roles.
 */
import { useState } from 'preact/hooks';
import { call, type Page } from '../api.js';
import { useHref, useSession } from '../context.js';
import { can } from '../session.js';
import {
  ConfirmDialog,
  Dialog,
  ErrorText,
  formValues,
  Loading,
  lines,
  SecretDialog,
  useAction,
  useApi,
  when,
} from '../ui.js';
import { RoleAssignments } from './role-assignments.js';

interface Application {
  readonly id: string;
  readonly clientId: string;
  readonly name: string;
  readonly type: 'SPA' | 'Native' | 'Traditional' | 'MachineToMachine';
  readonly redirectUris: readonly string[];
  readonly postLogoutRedirectUris: readonly string[];
  readonly tokenEndpointAuthMethod: string;
  readonly firstParty: boolean;
  readonly tokenExchangeEnabled: boolean;
  readonly dpopBoundAccessTokens: boolean;
  readonly secretUpdatedAt: string | null;
  readonly createdAt: string;
}

const TYPES: Readonly<Record<Application['type'], string>> = {
  SPA: 'Single-page app (public, PKCE)',
  Native: 'Native app (public, PKCE)',
  Traditional: 'Web app with a server (confidential)',
  MachineToMachine: 'Machine to machine (client credentials)',
};

const interactive = (type: string) => type !== 'MachineToMachine';

function CreateApplication(props: {
  readonly onClose: () => void;
  readonly onCreated: (app: Application, secret?: string) => void;
}) {
  const session = useSession();
  const action = useAction();
  const [type, setType] = useState<Application['type']>('SPA');
  return (
    <Dialog title="New application" onClose={props.onClose} id="new-application">
      <form
        onSubmit={async (event) => {
          const values = formValues(event);
          let created: (Application & { clientSecret?: string }) | undefined;
          const ok = await action.run(async () => {
            created = await call(session, 'POST', '/applications', {
              name: values.name,
              type,
              ...(interactive(type) ? { redirectUris: lines(values.redirectUris) } : {}),
              tokenExchangeEnabled: values.tokenExchangeEnabled === 'on',
              dpopBoundAccessTokens: values.dpopBoundAccessTokens === 'on',
            });
          });
          if (ok) {
            const { clientSecret, ...app } = created!;
            props.onCreated(app, clientSecret);
          }
        }}
      >
        <label for="app-name">Name</label>
        <input id="app-name" name="name" required autocomplete="off" />
        <label for="app-type">Type</label>
        <select
          id="app-type"
          name="type"
          value={type}
          onChange={(event) =>
            setType((event.currentTarget as HTMLSelectElement).value as Application['type'])
          }
        >
          {Object.entries(TYPES).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
        {interactive(type) ? (
          <>
            <label for="app-redirects">Redirect URIs, one per line</label>
            <textarea id="app-redirects" name="redirectUris" rows={3} required spellcheck={false} />
          </>
        ) : null}
        <div class="check">
          <input id="app-exchange" name="tokenExchangeEnabled" type="checkbox" />
          <label for="app-exchange">May use token exchange (impersonation)</label>
        </div>
        <div class="check">
          <input id="app-dpop" name="dpopBoundAccessTokens" type="checkbox" />
          <label for="app-dpop">Require DPoP-bound tokens</label>
        </div>
        <ErrorText error={action.error} />
        <div class="actions">
          <button type="button" class="secondary" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" disabled={action.busy}>
            Create application
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** The list. */
export function ApplicationsPage() {
  const session = useSession();
  const href = useHref();
  const { data, error, reload } = useApi<Page<Application>>(session, '/applications?pageSize=100');
  const [creating, setCreating] = useState(false);
  const [secret, setSecret] = useState<{ clientId: string; value: string } | undefined>(undefined);
  return (
    <section aria-labelledby="applications-title">
      <div class="title-row">
        <h1 id="applications-title">Applications</h1>
        {can(session, 'applications', true) ? (
          <button type="button" id="new-application-button" onClick={() => setCreating(true)}>
            New application
          </button>
        ) : null}
      </div>
      {data === undefined ? (
        <Loading error={error} />
      ) : (
        <table id="applications">
          <caption class="visually-hidden">Applications</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Type</th>
              <th scope="col">Client id</th>
              <th scope="col">Token exchange</th>
            </tr>
          </thead>
          <tbody>
            {data.items.map((app) => (
              <tr key={app.id}>
                <td>
                  <a href={href(`/applications/${encodeURIComponent(app.id)}`)}>{app.name}</a>
                </td>
                <td data-label="Type">{app.type}</td>
                <td data-label="Client id">
                  <code>{app.clientId}</code>
                </td>
                <td data-label="Token exchange">{app.tokenExchangeEnabled ? 'On' : 'Off'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {creating ? (
        <CreateApplication
          onClose={() => setCreating(false)}
          onCreated={(app, value) => {
            setCreating(false);
            if (value !== undefined) setSecret({ clientId: app.clientId, value });
            reload();
          }}
        />
      ) : null}
      {secret !== undefined ? (
        <SecretDialog
          title={`Client secret of ${secret.clientId}`}
          label="Client secret"
          value={secret.value}
          onClose={() => setSecret(undefined)}
        />
      ) : null}
    </section>
  );
}

function Settings({ app, onSaved }: { readonly app: Application; readonly onSaved: () => void }) {
  const session = useSession();
  const action = useAction();
  const [saved, setSaved] = useState(false);
  const write = can(session, 'applications', true);
  return (
    <form
      id="application-settings"
      onSubmit={async (event) => {
        const values = formValues(event);
        setSaved(false);
        const ok = await action.run(() =>
          call(session, 'PATCH', `/applications/${encodeURIComponent(app.id)}`, {
            ...(interactive(app.type)
              ? {
                  redirectUris: lines(values.redirectUris),
                  postLogoutRedirectUris: lines(values.postLogoutRedirectUris),
                }
              : {}),
            tokenExchangeEnabled: values.tokenExchangeEnabled === 'on',
            dpopBoundAccessTokens: values.dpopBoundAccessTokens === 'on',
          }),
        );
        if (ok) {
          setSaved(true);
          onSaved();
        }
      }}
    >
      <fieldset disabled={!write}>
        <legend>Settings</legend>
        {interactive(app.type) ? (
          <>
            <label for="edit-redirects">Redirect URIs, one per line</label>
            <textarea
              id="edit-redirects"
              name="redirectUris"
              rows={3}
              defaultValue={app.redirectUris.join('\n')}
              spellcheck={false}
            />
            <label for="edit-logout">Post-logout redirect URIs, one per line</label>
            <textarea
              id="edit-logout"
              name="postLogoutRedirectUris"
              rows={2}
              defaultValue={app.postLogoutRedirectUris.join('\n')}
              spellcheck={false}
            />
          </>
        ) : null}
        <div class="check">
          <input
            id="edit-exchange"
            name="tokenExchangeEnabled"
            type="checkbox"
            defaultChecked={app.tokenExchangeEnabled}
          />
          <label for="edit-exchange">May use token exchange (impersonation)</label>
        </div>
        <div class="check">
          <input
            id="edit-dpop"
            name="dpopBoundAccessTokens"
            type="checkbox"
            defaultChecked={app.dpopBoundAccessTokens}
          />
          <label for="edit-dpop">Require DPoP-bound tokens</label>
        </div>
      </fieldset>
      <ErrorText error={action.error} />
      {write ? (
        <div class="actions left">
          <button type="submit" disabled={action.busy}>
            Save
          </button>
          <span role="status" class="muted">
            {saved ? 'Saved.' : ''}
          </span>
        </div>
      ) : null}
    </form>
  );
}

/** One application. */
export function ApplicationPage({ id }: { readonly id: string }) {
  const session = useSession();
  const href = useHref();
  const {
    data: app,
    error,
    reload,
  } = useApi<Application>(session, `/applications/${encodeURIComponent(id)}`);
  const [rotating, setRotating] = useState(false);
  const [secret, setSecret] = useState<string | undefined>(undefined);
  if (app === undefined) return <Loading error={error} />;
  const confidential = app.tokenEndpointAuthMethod !== 'none';
  return (
    <section aria-labelledby="application-title">
      <p>
        <a href={href('/applications')}>← Applications</a>
      </p>
      <h1 id="application-title">{app.name}</h1>
      <dl class="facts">
        <div>
          <dt>Client id</dt>
          <dd>
            <code id="client-id">{app.clientId}</code>
          </dd>
        </div>
        <div>
          <dt>Type</dt>
          <dd>{TYPES[app.type]}</dd>
        </div>
        <div>
          <dt>Secret</dt>
          <dd>{confidential ? `Set ${when(app.secretUpdatedAt)}` : 'None (public client, PKCE)'}</dd>
        </div>
      </dl>
      <Settings app={app} onSaved={reload} />
      {confidential && can(session, 'applications', true) ? (
        <div class="actions left">
          <button type="button" class="danger" id="rotate-secret" onClick={() => setRotating(true)}>
            Rotate secret
          </button>
        </div>
      ) : null}
      {app.type === 'MachineToMachine' ? (
        <RoleAssignments
          holder={`/applications/${encodeURIComponent(app.id)}`}
          type="MachineToMachine"
          area="applications"
        />
      ) : null}
      {rotating ? (
        <ConfirmDialog
          title="Rotate the client secret?"
          confirm="Rotate secret"
          onClose={() => setRotating(false)}
          onConfirm={async () => {
            const result = await call<{ clientSecret: string }>(
              session,
              'POST',
              `/applications/${encodeURIComponent(app.id)}/secret`,
            );
            setSecret(result.clientSecret);
            reload();
          }}
        >
          <p>The current secret stops working at once; tokens already issued stay valid until they expire.</p>
        </ConfirmDialog>
      ) : null}
      {secret !== undefined ? (
        <SecretDialog
          title="New client secret"
          label="Client secret"
          value={secret}
          onClose={() => setSecret(undefined)}
        />
      ) : null}
    </section>
  );
}
