/**
 * The activity page, in three views of the audit trail, newest first:
 * - Impersonation (`/activity`): subject tokens created and token exchanges (succeeded or refused);
 * - Administration (`/activity/administration`): every change made through the Management API — who
 *   (the console user, or the application), what, on what, which fields, when;
 * - Sign-in (`/activity/sign-in`): refused and locked sign-ins.
 * Filters live in the address, so a filtered view can be linked to. Each view asks the API for its own
 * event types only (`type=a,b,…`), so its pages and their count are the view's.
 */
import { useLocation } from 'preact-iso';
import type { Page } from '../api.js';
import { useHref, useSession } from '../context.js';
import { type ActivityView, type AuditEvent, VIEW_TYPES } from '../events.js';
import { formValues, Loading, useApi } from '../ui.js';
import { ChangeEntries, ImpersonationEntries, SignInEntries } from './activity-entries.js';

/** Events per page (the API's largest page). */
const PAGE_SIZE = 100;

interface Filter {
  readonly name: 'type' | 'userId' | 'actorId' | 'applicationId' | 'since' | 'until';
  readonly label: string;
  readonly id: string;
}

const SINCE: Filter = { name: 'since', label: 'From', id: 'filter-since' };
const UNTIL: Filter = { name: 'until', label: 'To', id: 'filter-until' };
const TYPE: Filter = { name: 'type', label: 'What', id: 'filter-type' };

const VIEWS: Readonly<
  Record<
    ActivityView,
    {
      readonly path: string;
      readonly tab: string;
      readonly title: string;
      readonly intro: string;
      readonly none: string;
      readonly filters: readonly Filter[];
    }
  >
> = {
  impersonation: {
    path: '/activity',
    tab: 'Impersonation',
    title: 'Impersonation activity',
    intro: 'Subject tokens created for impersonation, and every exchange of one, newest first.',
    none: 'No impersonation activity',
    filters: [
      { name: 'userId', label: 'User (subject) id', id: 'filter-user' },
      { name: 'actorId', label: 'Actor id', id: 'filter-actor' },
      SINCE,
      UNTIL,
    ],
  },
  administration: {
    path: '/activity/administration',
    tab: 'Administration',
    title: 'Administration activity',
    intro:
      'Every change made through the Management API — by a person in this console or by an application — newest first: who, what, on what, which fields (never their values), when.',
    none: 'No administrator changes',
    filters: [
      TYPE,
      { name: 'actorId', label: 'Console user id', id: 'filter-actor' },
      { name: 'applicationId', label: 'Application (client) id', id: 'filter-application' },
      SINCE,
      UNTIL,
    ],
  },
  'sign-in': {
    path: '/activity/sign-in',
    tab: 'Sign-in',
    title: 'Sign-in activity',
    intro:
      'Sign-ins refused (wrong password, suspended account) and sign-ins locked after too many failures.',
    none: 'No refused sign-ins',
    filters: [TYPE, { name: 'userId', label: 'User id', id: 'filter-user' }, SINCE, UNTIL],
  },
};

/** `datetime-local` value (local time) → ISO 8601 with offset, as the API wants. */
const toIso = (local: string) => (local === '' ? '' : new Date(local).toISOString());
const toLocal = (iso: string | undefined) => {
  if (!iso) return '';
  const date = new Date(iso);
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

function ViewTabs({ current }: { readonly current: ActivityView }) {
  const href = useHref();
  return (
    <nav aria-label="Activity views" class="views">
      <ul>
        {(Object.keys(VIEWS) as ActivityView[]).map((view) => (
          <li key={view}>
            <a href={href(VIEWS[view].path)} aria-current={view === current ? 'page' : undefined}>
              {VIEWS[view].tab}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function Filters({ view }: { readonly view: ActivityView }) {
  const { query, path, route } = useLocation();
  const { filters } = VIEWS[view];
  return (
    <search>
      <form
        class="filters"
        onSubmit={(event) => {
          const values = formValues(event);
          const next = new URLSearchParams();
          for (const { name } of filters) {
            const value =
              name === 'since' || name === 'until' ? toIso(values[name] ?? '') : values[name]?.trim();
            if (value) next.set(name, value);
          }
          route(`${path}${next.size > 0 ? `?${next}` : ''}`);
        }}
      >
        {filters.map((filter) => (
          <div key={filter.name}>
            <label for={filter.id}>{filter.label}</label>
            {filter.name === 'type' ? (
              <select id={filter.id} name="type" defaultValue={query.type ?? ''}>
                <option value="">Everything</option>
                {Object.entries(VIEW_TYPES[view]).map(([type, label]) => (
                  <option key={type} value={type}>
                    {label}
                  </option>
                ))}
              </select>
            ) : filter.name === 'since' || filter.name === 'until' ? (
              <input
                id={filter.id}
                name={filter.name}
                type="datetime-local"
                defaultValue={toLocal(query[filter.name])}
              />
            ) : (
              <input
                id={filter.id}
                name={filter.name}
                defaultValue={query[filter.name] ?? ''}
                autocomplete="off"
                spellcheck={false}
              />
            )}
          </div>
        ))}
        <div class="filter-actions">
          <button type="submit">Filter</button>
          <a class="button secondary" href={path}>
            Clear
          </a>
        </div>
      </form>
    </search>
  );
}

/**
 * One view of the activity page.
 *
 * @example
 * ```tsx
 * <Route path={`${base}/activity/administration`} component={() => <ActivityPage view="administration" />} />
 * ```
 */
export function ActivityPage({ view = 'impersonation' }: { readonly view?: ActivityView }) {
  const session = useSession();
  const { query, path } = useLocation();
  const settings = VIEWS[view];
  const names = settings.filters.map((filter) => filter.name);
  const page = Math.max(1, Number.parseInt(query.page ?? '1', 10) || 1);
  const params = new URLSearchParams({ pageSize: String(PAGE_SIZE), page: String(page) });
  for (const name of names) if (query[name]) params.set(name, query[name]!);
  // A type of another view is not this view's: it is left out. Without one, the API is asked for every
  // type of this view (so each page of the answer is a page of this view).
  if (params.has('type') && !(params.get('type')! in VIEW_TYPES[view])) params.delete('type');
  if (!params.has('type')) params.set('type', Object.keys(VIEW_TYPES[view]).join(','));
  /** This view's address on another page. */
  const pageHref = (to: number) => {
    const next = new URLSearchParams();
    for (const name of names) if (query[name]) next.set(name, query[name]!);
    if (to > 1) next.set('page', String(to));
    return `${path}${next.size > 0 ? `?${next}` : ''}`;
  };
  const { data, error } = useApi<Page<AuditEvent>>(session, `/audit-events?${params}`);
  const events = (data?.items ?? []).filter((event) => event.type in VIEW_TYPES[view]);
  const filtered = names.some((name) => query[name]);
  const more = data !== undefined && (data.total ?? 0) > page * PAGE_SIZE;

  return (
    <section aria-labelledby="activity-title">
      <h1 id="activity-title">{settings.title}</h1>
      <ViewTabs current={view} />
      <p class="muted">{settings.intro}</p>
      <Filters key={view} view={view} />
      {data === undefined ? (
        <Loading error={error} />
      ) : events.length === 0 ? (
        <p class="muted empty" role="status">
          {page === 1 && !more
            ? `${settings.none} ${filtered ? 'matches these filters' : 'yet'}.`
            : `${settings.none} on this page of the audit trail${more ? '; older events follow' : ''}.`}
        </p>
      ) : view === 'impersonation' ? (
        <ImpersonationEntries events={events} all={data.items} />
      ) : view === 'administration' ? (
        <ChangeEntries events={events} />
      ) : (
        <SignInEntries events={events} />
      )}
      {data !== undefined && (page > 1 || more) ? (
        <nav aria-label="Pages" class="pager">
          {page > 1 ? <a href={pageHref(page - 1)}>← Newer</a> : null}
          <span class="muted">
            Page {page} of {Math.max(1, Math.ceil((data.total ?? 0) / PAGE_SIZE))}
          </span>
          {more ? <a href={pageHref(page + 1)}>Older →</a> : null}
        </nav>
      ) : null}
    </section>
  );
}
