/**
 * Applications: list and create (a confidential application's secret is shown once); one
 * application's page with its redirect URIs, the token-exchange switch, the DPoP requirement, secret
 * rotation (shown once), its custom data, deletion and, for machine-to-machine applications, its roles.
 */
import { useState } from 'preact/hooks';
import { call, type Page } from '../api.js';
import { CreateDialog } from '../components/create-dialog.js';
import { CustomDataForm } from '../components/custom-data.js';
import { DeleteButton } from '../components/delete-button.js';
import { type Column, ListPage } from '../components/resource-table.js';
import { SaveActions } from '../components/save-actions.js';
import { useHref, useSession } from '../context.js';
import { can } from '../session.js';
import {
  ConfirmDialog,
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
  readonly customData: Record<string, unknown>;
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
  const [type, setType] = useState<Application['type']>('SPA');
  return (
    <CreateDialog
      title="New application"
      id="new-application"
      submit="Create application"
      onClose={props.onClose}
      action={(values) =>
        call<Application & { clientSecret?: string }>(session, 'POST', '/applications', {
          name: values.name,
          type,
          ...(interactive(type) ? { redirectUris: lines(values.redirectUris) } : {}),
          tokenExchangeEnabled: values.tokenExchangeEnabled === 'on',
          dpopBoundAccessTokens: values.dpopBoundAccessTokens === 'on',
        })
      }
      onDone={({ clientSecret, ...app }) => props.onCreated(app, clientSecret)}
    >
      <label for="app-name">Name</label>
      <input id="app-name" name="name" required autocomplete="off" />
      <label for="app-type">Type</label>
      <select
        id="app-type"
        name="type"
        value={type}
        onChange={(event) => setType((event.currentTarget as HTMLSelectElement).value as Application['type'])}
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
    </CreateDialog>
  );
}

function AppLink({ app }: { readonly app: Application }) {
  const href = useHref();
  return <a href={href(`/applications/${encodeURIComponent(app.id)}`)}>{app.name}</a>;
}

const COLUMNS: readonly Column<Application>[] = [
  { label: 'Name', cell: (app) => <AppLink app={app} /> },
  { label: 'Type', cell: (app) => app.type },
  { label: 'Client id', cell: (app) => <code>{app.clientId}</code> },
  { label: 'Token exchange', cell: (app) => (app.tokenExchangeEnabled ? 'On' : 'Off') },
];

/** The list. */
export function ApplicationsPage() {
  const session = useSession();
  const list = useApi<Page<Application>>(session, '/applications?pageSize=100');
  const [secret, setSecret] = useState<{ clientId: string; value: string } | undefined>(undefined);
  return (
    <ListPage
      name="applications"
      singular="application"
      title="Applications"
      area="applications"
      newLabel="New application"
      list={list}
      columns={COLUMNS}
      onCreated={list.reload}
      create={(close, created) => (
        <CreateApplication
          onClose={close}
          onCreated={(app, value) => {
            if (value !== undefined) setSecret({ clientId: app.clientId, value });
            created();
          }}
        />
      )}
      footer={
        secret !== undefined ? (
          <SecretDialog
            title={`Client secret of ${secret.clientId}`}
            label="Client secret"
            value={secret.value}
            onClose={() => setSecret(undefined)}
          />
        ) : null
      }
    />
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
      {write ? <SaveActions label="Save" busy={action.busy} saved={saved} /> : null}
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
      <h2>Custom data</h2>
      <CustomDataForm
        path={`/applications/${encodeURIComponent(app.id)}`}
        value={app.customData}
        write={can(session, 'applications', true)}
        onSaved={reload}
      />
      {app.type === 'MachineToMachine' ? (
        <RoleAssignments
          holder={`/applications/${encodeURIComponent(app.id)}`}
          type="MachineToMachine"
          area="applications"
        />
      ) : null}
      {can(session, 'applications', true) ? (
        <DeleteButton
          noun="application"
          name={app.name}
          path={`/applications/${encodeURIComponent(app.id)}`}
          back="/applications"
        >
          <p>
            Its client id <code>{app.clientId}</code> stops working at once: no sign-in, no new token. Tokens
            already issued stay valid until they expire.
          </p>
        </DeleteButton>
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
