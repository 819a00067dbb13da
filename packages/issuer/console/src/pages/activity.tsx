/**
 * The impersonation activity: subject tokens created and token exchanges (succeeded or refused),
 * newest first — who acted (actor), as whom (subject), through which application, for which API, when,
 * the outcome, and the integrator's context (ticket, reason). Filters (user, actor, from, to) live in
 * the address, so a filtered view can be linked to.
 */
import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { call, type Page } from '../api.js';
import { useHref, useSession } from '../context.js';
import { can } from '../session.js';
import { formValues, Loading, useApi, when } from '../ui.js';

interface AuditEvent {
  readonly id: string;
  readonly type: string;
  readonly createdAt: string;
  readonly applicationId: string | null;
  readonly userId: string | null;
  readonly actorId: string | null;
  readonly reason: string | null;
  readonly details: Record<string, unknown>;
}

const KINDS: Readonly<Record<string, string>> = {
  'subject_token.created': 'Subject token created',
  'token_exchange.succeeded': 'Exchanged',
  'token_exchange.failed': 'Exchange refused',
};

const FILTERS = ['userId', 'actorId', 'since', 'until'] as const;
/** Events per page (the API's largest page). */
const PAGE_SIZE = 100;

/** `datetime-local` value (local time) → ISO 8601 with offset, as the API wants. */
const toIso = (local: string) => (local === '' ? '' : new Date(local).toISOString());
const toLocal = (iso: string | undefined) => {
  if (!iso) return '';
  const date = new Date(iso);
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

/**
 * Usernames and application names of the ids on the page, read once each (when the session may read
 * them); an id that cannot be read stays an id.
 */
function useNames(events: readonly AuditEvent[] | undefined): ReadonlyMap<string, string> {
  const session = useSession();
  const [names, setNames] = useState<ReadonlyMap<string, string>>(new Map());
  const wanted = new Set<string>();
  for (const event of events ?? []) {
    if (can(session, 'users'))
      for (const id of [event.userId, event.actorId]) if (id) wanted.add(`users/${id}`);
    if (can(session, 'applications') && event.applicationId)
      wanted.add(`applications/${event.applicationId}`);
  }
  const key = [...wanted].sort().join(' ');
  useEffect(() => {
    let live = true;
    Promise.all(
      [...wanted].map(async (path) => {
        const [kind, id] = path.split('/') as [string, string];
        const found = await call<{ username?: string; name?: string }>(
          session,
          'GET',
          `/${kind}/${encodeURIComponent(id)}`,
        ).catch(() => undefined);
        return [id, found?.username ?? found?.name] as const;
      }),
    ).then((pairs) => {
      if (live) setNames(new Map(pairs.filter((pair): pair is [string, string] => pair[1] !== undefined)));
    });
    return () => {
      live = false;
    };
  }, [session, key]);
  return names;
}

function UserLink({
  id,
  names,
}: {
  readonly id: string | null;
  readonly names: ReadonlyMap<string, string>;
}) {
  const href = useHref();
  if (id === null) return <span class="muted">—</span>;
  return (
    <>
      <a href={href(`/users/${encodeURIComponent(id)}`)}>{names.get(id) ?? id}</a>
      {names.has(id) ? <span class="id">{id}</span> : null}
    </>
  );
}

function Context({ context }: { readonly context: unknown }) {
  if (context === null || typeof context !== 'object' || Object.keys(context).length === 0)
    return <span class="muted">—</span>;
  return (
    <dl class="context">
      {Object.entries(context as Record<string, unknown>).map(([key, value]) => (
        <div key={key}>
          <dt>{key}</dt>
          <dd>{typeof value === 'string' ? value : JSON.stringify(value)}</dd>
        </div>
      ))}
    </dl>
  );
}

/** The timeline page. */
export function ActivityPage() {
  const session = useSession();
  const { query, path, route } = useLocation();
  const page = Math.max(1, Number.parseInt(query.page ?? '1', 10) || 1);
  const params = new URLSearchParams({ pageSize: String(PAGE_SIZE), page: String(page) });
  for (const name of FILTERS) if (query[name]) params.set(name, query[name]!);
  /** This view's address on another page. */
  const pageHref = (to: number) => {
    const next = new URLSearchParams();
    for (const name of FILTERS) if (query[name]) next.set(name, query[name]!);
    if (to > 1) next.set('page', String(to));
    return `${path}${next.size > 0 ? `?${next}` : ''}`;
  };
  const { data, error } = useApi<Page<AuditEvent>>(session, `/audit-events?${params}`);
  // Exchanges recorded before their events carried the context name the token by id: the context of its
  // creation is used when that is on the same page.
  const contexts = new Map<string, unknown>();
  for (const event of data?.items ?? [])
    if (event.type === 'subject_token.created')
      contexts.set(String(event.details.subjectTokenId), event.details.context);
  const events = (data?.items ?? []).filter((event) => event.type in KINDS);
  const names = useNames(data?.items);

  return (
    <section aria-labelledby="activity-title">
      <h1 id="activity-title">Impersonation activity</h1>
      <p class="muted">Subject tokens created for impersonation, and every exchange of one, newest first.</p>
      <search>
        <form
          class="filters"
          onSubmit={(event) => {
            const values = formValues(event);
            const next = new URLSearchParams();
            for (const name of FILTERS) {
              const value =
                name === 'since' || name === 'until' ? toIso(values[name] ?? '') : values[name]?.trim();
              if (value) next.set(name, value);
            }
            route(`${path}${next.size > 0 ? `?${next}` : ''}`);
          }}
        >
          <div>
            <label for="filter-user">User (subject) id</label>
            <input id="filter-user" name="userId" defaultValue={query.userId ?? ''} autocomplete="off" />
          </div>
          <div>
            <label for="filter-actor">Actor id</label>
            <input id="filter-actor" name="actorId" defaultValue={query.actorId ?? ''} autocomplete="off" />
          </div>
          <div>
            <label for="filter-since">From</label>
            <input id="filter-since" name="since" type="datetime-local" defaultValue={toLocal(query.since)} />
          </div>
          <div>
            <label for="filter-until">To</label>
            <input id="filter-until" name="until" type="datetime-local" defaultValue={toLocal(query.until)} />
          </div>
          <div class="filter-actions">
            <button type="submit">Filter</button>
            <a class="button secondary" href={path}>
              Clear
            </a>
          </div>
        </form>
      </search>
      {data === undefined ? (
        <Loading error={error} />
      ) : events.length === 0 ? (
        <p class="muted" role="status">
          No impersonation activity {params.size > 2 ? 'matches these filters' : 'yet'}.
        </p>
      ) : (
        <ol class="timeline" id="timeline">
          {events.map((event) => {
            const refused = event.type === 'token_exchange.failed';
            const tokenId = event.details.subjectTokenId as string | undefined;
            // Exchanges carry their subject token's context; older events only name the token.
            const context =
              event.details.context !== undefined || tokenId === undefined
                ? event.details.context
                : contexts.get(tokenId);
            return (
              <li key={event.id} class={refused ? 'refused' : 'ok'} data-type={event.type}>
                <p class="when">
                  <time dateTime={event.createdAt}>{when(event.createdAt)}</time>
                  <span class={`badge ${refused ? 'bad' : 'good'}`}>
                    {KINDS[event.type]}
                    {refused && event.reason ? `: ${event.reason}` : ''}
                  </span>
                </p>
                <dl class="facts">
                  <div>
                    <dt>Actor</dt>
                    <dd>
                      <UserLink id={event.actorId} names={names} />
                    </dd>
                  </div>
                  <div>
                    <dt>As user</dt>
                    <dd>
                      <UserLink id={event.userId} names={names} />
                    </dd>
                  </div>
                  <div>
                    <dt>Application</dt>
                    <dd>
                      {event.applicationId === null ? (
                        '—'
                      ) : (
                        <>
                          {names.get(event.applicationId) ?? event.applicationId}
                          {names.has(event.applicationId) ? (
                            <span class="id">{event.applicationId}</span>
                          ) : null}
                        </>
                      )}
                    </dd>
                  </div>
                  <div>
                    <dt>API</dt>
                    <dd>{(event.details.resource as string | undefined) ?? '—'}</dd>
                  </div>
                  {event.details.scope ? (
                    <div>
                      <dt>Scopes</dt>
                      <dd>{String(event.details.scope)}</dd>
                    </div>
                  ) : null}
                  <div>
                    <dt>Context</dt>
                    <dd>
                      <Context context={context} />
                    </dd>
                  </div>
                </dl>
              </li>
            );
          })}
        </ol>
      )}
      {data !== undefined && (page > 1 || (data.total ?? 0) > page * PAGE_SIZE) ? (
        <nav aria-label="Pages" class="pager">
          {page > 1 ? <a href={pageHref(page - 1)}>← Newer</a> : null}
          <span class="muted">
            Page {page} of {Math.max(1, Math.ceil((data.total ?? 0) / PAGE_SIZE))}
          </span>
          {(data.total ?? 0) > page * PAGE_SIZE ? <a href={pageHref(page + 1)}>Older →</a> : null}
        </nav>
      ) : null}
    </section>
  );
}
