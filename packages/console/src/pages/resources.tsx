/** API resources: list and create; one resource's page: its name and token lifetime, its scopes (add, describe, remove), deletion. */
import { useState } from 'preact/hooks';
import { call, type Page } from '../api.js';
import { CreateDialog } from '../components/create-dialog.js';
import { DeleteButton } from '../components/delete-button.js';
import { type Column, ListPage, ResourceTable } from '../components/resource-table.js';
import { SaveActions } from '../components/save-actions.js';
import { useHref, useSession } from '../context.js';
import { can } from '../session.js';
import { ConfirmDialog, ErrorText, formValues, Loading, useAction, useApi } from '../ui.js';

/** An API resource. */
export interface Resource {
  readonly id: string;
  readonly name: string;
  readonly indicator: string;
  readonly accessTokenTtl: number;
  readonly system: boolean;
}

/** A scope of a resource. */
export interface Scope {
  readonly id: string;
  readonly resourceId: string;
  readonly name: string;
  readonly description: string;
}

function CreateResource(props: { readonly onClose: () => void; readonly onCreated: () => void }) {
  const session = useSession();
  return (
    <CreateDialog
      title="New API resource"
      id="new-resource"
      submit="Create resource"
      onClose={props.onClose}
      onDone={props.onCreated}
      action={({ name, indicator, ttl }) =>
        call(session, 'POST', '/resources', {
          name,
          indicator,
          ...(ttl ? { accessTokenTtl: Number(ttl) } : {}),
        })
      }
    >
      <label for="resource-name">Name</label>
      <input id="resource-name" name="name" required autocomplete="off" />
      <label for="resource-indicator">
        Identifier (the tokens' audience), e.g. https://orders.example.com
      </label>
      <input
        id="resource-indicator"
        name="indicator"
        type="url"
        required
        autocomplete="off"
        spellcheck={false}
      />
      <label for="resource-ttl">Access token lifetime in seconds (optional)</label>
      <input id="resource-ttl" name="ttl" type="number" min={60} max={86400} />
    </CreateDialog>
  );
}

const COLUMNS: readonly Column<Resource>[] = [
  { label: 'Name', cell: (resource) => <ResourceLink resource={resource} /> },
  { label: 'Identifier', cell: (resource) => <code>{resource.indicator}</code> },
  { label: 'Token lifetime', cell: (resource) => `${resource.accessTokenTtl} s` },
];

function ResourceLink({ resource }: { readonly resource: Resource }) {
  const href = useHref();
  return (
    <>
      <a href={href(`/resources/${encodeURIComponent(resource.id)}`)}>{resource.name}</a>
      {resource.system ? <span class="badge"> built-in</span> : null}
    </>
  );
}

/** The list. */
export function ResourcesPage() {
  const session = useSession();
  const list = useApi<Page<Resource>>(session, '/resources?pageSize=100');
  return (
    <ListPage
      name="resources"
      singular="resource"
      title="API resources"
      area="resources"
      newLabel="New resource"
      list={list}
      columns={COLUMNS}
      onCreated={list.reload}
      create={(close, created) => <CreateResource onClose={close} onCreated={created} />}
    />
  );
}

/** The resource's name and access-token lifetime, for those who may change it. */
function ResourceSettings({
  resource,
  onSaved,
}: {
  readonly resource: Resource;
  readonly onSaved: () => void;
}) {
  const session = useSession();
  const action = useAction();
  const [saved, setSaved] = useState(false);
  return (
    <form
      id="resource-settings"
      onSubmit={async (event) => {
        const { name, ttl } = formValues(event);
        setSaved(false);
        const body = { name, accessTokenTtl: Number(ttl) };
        if (
          await action.run(() =>
            call(session, 'PATCH', `/resources/${encodeURIComponent(resource.id)}`, body),
          )
        ) {
          setSaved(true);
          onSaved();
        }
      }}
    >
      <fieldset>
        <legend>Settings</legend>
        <label for="edit-resource-name">Name</label>
        <input id="edit-resource-name" name="name" required autocomplete="off" defaultValue={resource.name} />
        <label for="edit-resource-ttl">Access token lifetime in seconds (60 to 86400)</label>
        <input
          id="edit-resource-ttl"
          name="ttl"
          type="number"
          required
          min={60}
          max={86400}
          defaultValue={String(resource.accessTokenTtl)}
        />
      </fieldset>
      <ErrorText error={action.error} />
      <SaveActions label="Save" busy={action.busy} saved={saved} />
    </form>
  );
}

/** One resource and its scopes. */
export function ResourcePage({ id }: { readonly id: string }) {
  const session = useSession();
  const href = useHref();
  const path = `/resources/${encodeURIComponent(id)}`;
  const { data: resource, error, reload } = useApi<Resource>(session, path);
  const scopes = useApi<{ items: Scope[] }>(session, `${path}/scopes`);
  const action = useAction();
  const [removing, setRemoving] = useState<Scope | undefined>(undefined);
  const [describing, setDescribing] = useState<Scope | undefined>(undefined);
  const write = can(session, 'resources', true) && resource?.system === false;
  if (resource === undefined) return <Loading error={error} />;
  return (
    <section aria-labelledby="resource-title">
      <p>
        <a href={href('/resources')}>← API resources</a>
      </p>
      <h1 id="resource-title">{resource.name}</h1>
      <p>
        <code>{resource.indicator}</code> · tokens live{' '}
        <span id="resource-ttl-value">{resource.accessTokenTtl}</span> s
      </p>
      {write ? <ResourceSettings resource={resource} onSaved={reload} /> : null}
      <h2>Scopes</h2>
      {scopes.data === undefined ? (
        <Loading error={scopes.error} />
      ) : (
        <ResourceTable
          id="scopes"
          caption="Scopes"
          empty="This API resource has no scopes yet."
          items={scopes.data.items}
          columns={SCOPE_COLUMNS}
          actions={
            write
              ? (scope) => (
                  <>
                    <button type="button" class="secondary small" onClick={() => setDescribing(scope)}>
                      Edit<span class="visually-hidden"> the description of {scope.name}</span>
                    </button>{' '}
                    <button type="button" class="danger small" onClick={() => setRemoving(scope)}>
                      Delete<span class="visually-hidden"> {scope.name}</span>
                    </button>
                  </>
                )
              : undefined
          }
        />
      )}
      {write ? (
        <form
          class="inline"
          id="new-scope"
          onSubmit={async (event) => {
            const form = event.currentTarget as HTMLFormElement;
            const { name, description } = formValues(event);
            if (
              await action.run(() =>
                call(session, 'POST', `${path}/scopes`, { name, description: description ?? '' }),
              )
            ) {
              form.reset();
              scopes.reload();
            }
          }}
        >
          <div>
            <label for="scope-name">New scope</label>
            <input id="scope-name" name="name" required autocomplete="off" spellcheck={false} />
          </div>
          <div>
            <label for="scope-description">Description</label>
            <input id="scope-description" name="description" autocomplete="off" />
          </div>
          <button type="submit" disabled={action.busy}>
            Add scope
          </button>
        </form>
      ) : null}
      <ErrorText error={action.error} />
      {write ? (
        <DeleteButton noun="API resource" name={resource.name} path={path} back="/resources">
          <p>
            Its scopes go with it (roles lose them), and no new token can be issued for {resource.indicator}.
          </p>
        </DeleteButton>
      ) : null}
      {describing !== undefined ? (
        <CreateDialog
          title={`Description of ${describing.name}`}
          id="edit-scope"
          submit="Save description"
          onClose={() => setDescribing(undefined)}
          onDone={() => {
            setDescribing(undefined);
            scopes.reload();
          }}
          action={({ description }) =>
            call(session, 'PATCH', `${path}/scopes/${encodeURIComponent(describing.id)}`, {
              description: description ?? '',
            })
          }
        >
          <label for="edit-scope-description">Description</label>
          <input
            id="edit-scope-description"
            name="description"
            autocomplete="off"
            defaultValue={describing.description}
          />
        </CreateDialog>
      ) : null}
      {removing !== undefined ? (
        <ConfirmDialog
          title={`Delete the scope ${removing.name}?`}
          confirm="Delete scope"
          onClose={() => setRemoving(undefined)}
          onConfirm={async () => {
            await call(session, 'DELETE', `${path}/scopes/${encodeURIComponent(removing.id)}`);
            scopes.reload();
          }}
        >
          <p>Roles lose it, and tokens issued from now on no longer carry it.</p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}

const SCOPE_COLUMNS: readonly Column<Scope>[] = [
  { label: 'Scope', cell: (scope) => <code>{scope.name}</code> },
  { label: 'Description', cell: (scope) => scope.description || '—' },
];
