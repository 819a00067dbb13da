/** API resources: list and create; one resource's page with its scopes (add, remove). */
import { useState } from 'preact/hooks';
import { call, type Page } from '../api.js';
import { useHref, useSession } from '../context.js';
import { can } from '../session.js';
import { ConfirmDialog, Dialog, ErrorText, formValues, Loading, useAction, useApi } from '../ui.js';

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
  const action = useAction();
  return (
    <Dialog title="New API resource" onClose={props.onClose} id="new-resource">
      <form
        onSubmit={async (event) => {
          const { name, indicator, ttl } = formValues(event);
          const ok = await action.run(() =>
            call(session, 'POST', '/resources', {
              name,
              indicator,
              ...(ttl ? { accessTokenTtl: Number(ttl) } : {}),
            }),
          );
          if (ok) props.onCreated();
        }}
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
        <ErrorText error={action.error} />
        <div class="actions">
          <button type="button" class="secondary" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" disabled={action.busy}>
            Create resource
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** The list. */
export function ResourcesPage() {
  const session = useSession();
  const href = useHref();
  const { data, error, reload } = useApi<Page<Resource>>(session, '/resources?pageSize=100');
  const [creating, setCreating] = useState(false);
  return (
    <section aria-labelledby="resources-title">
      <div class="title-row">
        <h1 id="resources-title">API resources</h1>
        {can(session, 'resources', true) ? (
          <button type="button" id="new-resource-button" onClick={() => setCreating(true)}>
            New resource
          </button>
        ) : null}
      </div>
      {data === undefined ? (
        <Loading error={error} />
      ) : (
        <table id="resources">
          <caption class="visually-hidden">API resources</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Identifier</th>
              <th scope="col">Token lifetime</th>
            </tr>
          </thead>
          <tbody>
            {data.items.map((resource) => (
              <tr key={resource.id}>
                <td>
                  <a href={href(`/resources/${encodeURIComponent(resource.id)}`)}>{resource.name}</a>
                  {resource.system ? <span class="badge"> built-in</span> : null}
                </td>
                <td>
                  <code>{resource.indicator}</code>
                </td>
                <td data-label="Token lifetime">{resource.accessTokenTtl} s</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {creating ? (
        <CreateResource
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

/** One resource and its scopes. */
export function ResourcePage({ id }: { readonly id: string }) {
  const session = useSession();
  const href = useHref();
  const path = `/resources/${encodeURIComponent(id)}`;
  const { data: resource, error } = useApi<Resource>(session, path);
  const scopes = useApi<{ items: Scope[] }>(session, `${path}/scopes`);
  const action = useAction();
  const [removing, setRemoving] = useState<Scope | undefined>(undefined);
  const write = can(session, 'resources', true) && resource?.system === false;
  if (resource === undefined) return <Loading error={error} />;
  return (
    <section aria-labelledby="resource-title">
      <p>
        <a href={href('/resources')}>← API resources</a>
      </p>
      <h1 id="resource-title">{resource.name}</h1>
      <p>
        <code>{resource.indicator}</code> · tokens live {resource.accessTokenTtl} s
      </p>
      <h2>Scopes</h2>
      {scopes.data === undefined ? (
        <Loading error={scopes.error} />
      ) : (
        <table id="scopes">
          <caption class="visually-hidden">Scopes</caption>
          <thead>
            <tr>
              <th scope="col">Scope</th>
              <th scope="col">Description</th>
              {write ? (
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              ) : null}
            </tr>
          </thead>
          <tbody>
            {scopes.data.items.map((scope) => (
              <tr key={scope.id}>
                <td>
                  <code>{scope.name}</code>
                </td>
                <td data-label="Description">{scope.description || '—'}</td>
                {write ? (
                  <td>
                    <button type="button" class="danger small" onClick={() => setRemoving(scope)}>
                      Delete<span class="visually-hidden"> {scope.name}</span>
                    </button>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
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
