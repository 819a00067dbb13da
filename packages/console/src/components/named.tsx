/**
 * Ids shown by name: what a list of audit events refers to (users, applications, roles, API
 * resources, scopes) is read once each — only the kinds the session may read — and shown as a link
 * to its page with the id beside it. What cannot be read (deleted, or not the session's to read)
 * stays an id, unlinked.
 */
import { useEffect, useState } from 'preact/hooks';
import { call, type Page } from '../api.js';
import { useHref, useSession } from '../context.js';
import type { Ref } from '../events.js';
import { type Area, can } from '../session.js';

/** A name found for a reference, and the console path of its page. */
export interface Found {
  readonly name: string;
  readonly path?: string | undefined;
}

/** Names by `kind:id`. */
export type Names = ReadonlyMap<string, Found>;

const AREA: Readonly<Partial<Record<Ref['kind'], Area>>> = {
  user: 'users',
  application: 'applications',
  role: 'roles',
  resource: 'resources',
  scope: 'resources',
  key: 'keys',
};
const PATHS: Readonly<Partial<Record<Ref['kind'], string>>> = {
  user: 'users',
  application: 'applications',
  role: 'roles',
  resource: 'resources',
};

/**
 * The names of `refs` (read when the session may), keyed `kind:id`.
 *
 * @example
 * ```tsx
 * const names = useNames([{ kind: 'user', id: event.actorId }]);
 * <RefLink target={{ kind: 'user', id: event.actorId }} names={names} />
 * ```
 */
export function useNames(refs: readonly Ref[]): Names {
  const session = useSession();
  const [names, setNames] = useState<Names>(new Map());
  const wanted = [...new Map(refs.map((ref) => [`${ref.kind}:${ref.id}`, ref])).values()].filter((ref) => {
    const area = AREA[ref.kind];
    return area !== undefined && can(session, area);
  });
  const key = wanted
    .map((ref) => `${ref.kind}:${ref.id}`)
    .sort()
    .join(' ');
  useEffect(() => {
    let live = true;
    const found = new Map<string, Found>();
    const lookups = wanted
      .filter((ref) => PATHS[ref.kind] !== undefined)
      .map(async (ref) => {
        const path = `/${PATHS[ref.kind]}/${encodeURIComponent(ref.id)}`;
        const item = await call<{ username?: string; name?: string }>(session, 'GET', path).catch(
          () => undefined,
        );
        const name = item?.username ?? item?.name;
        if (name !== undefined) found.set(`${ref.kind}:${ref.id}`, { name, path });
      });
    for (const ref of wanted)
      if (ref.kind === 'key') found.set(`key:${ref.id}`, { name: ref.id, path: '/keys' });
    // Scopes are read through their resources (there are few): one list per resource.
    if (wanted.some((ref) => ref.kind === 'scope'))
      lookups.push(
        call<Page<{ id: string }>>(session, 'GET', '/resources?pageSize=100')
          .then((resources) =>
            Promise.all(
              resources.items.map(async (resource) => {
                const scopes = await call<{ items: { id: string; name: string }[] }>(
                  session,
                  'GET',
                  `/resources/${encodeURIComponent(resource.id)}/scopes`,
                );
                for (const scope of scopes.items)
                  found.set(`scope:${scope.id}`, {
                    name: scope.name,
                    path: `/resources/${encodeURIComponent(resource.id)}`,
                  });
              }),
            ),
          )
          .then(
            () => undefined,
            () => undefined,
          ),
      );
    Promise.all(lookups).then(() => {
      if (live) setNames(found);
    });
    return () => {
      live = false;
    };
  }, [session, key]);
  return names;
}

/**
 * One reference: its name linked to its page (with the id beside it) when known, else the id.
 *
 * @example
 * ```tsx
 * <RefLink target={{ kind: 'role', id: 'rol_1' }} names={names} />
 * ```
 */
export function RefLink({ target, names }: { readonly target: Ref; readonly names: Names }) {
  const href = useHref();
  const found = names.get(`${target.kind}:${target.id}`);
  if (found === undefined) return <code class="ref">{target.id}</code>;
  return (
    <>
      {found.path === undefined ? <strong>{found.name}</strong> : <a href={href(found.path)}>{found.name}</a>}
      {found.name === target.id ? null : <span class="id">{target.id}</span>}
    </>
  );
}
