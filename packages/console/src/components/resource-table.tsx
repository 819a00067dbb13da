/**
 * The list pages' table and frame: a page title with its "New …" button (for those who may write),
 * then "Loading…" or a table of the items, then the create dialog while it is open.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { useSession } from '../context.js';
import { type Area, can } from '../session.js';
import { Loading } from '../ui.js';

/** A column: its header and how an item fills its cell. The first column names the item. */
export interface Column<T> {
  readonly label: string;
  readonly cell: (item: T) => ComponentChildren;
}

/**
 * A table of items with a hidden caption; every column but the first labels its cells (for the
 * stacked phone layout), and `actions` adds a last column of per-item buttons. With no items, an
 * empty state (`#{id}-empty`) says so instead of an empty table.
 *
 * @example
 * ```tsx
 * <ResourceTable id="roles" caption="Roles" items={roles} columns={[{ label: 'Name', cell: (r) => r.name }]} />
 * ```
 */
export function ResourceTable<T extends { readonly id: string }>(props: {
  readonly id: string;
  readonly caption: string;
  readonly items: readonly T[];
  readonly columns: readonly Column<T>[];
  readonly actions?: ((item: T) => ComponentChildren) | undefined;
  /** What the empty state says; default "No {caption} yet." */
  readonly empty?: string | undefined;
}) {
  if (props.items.length === 0)
    return (
      <p class="muted empty" id={`${props.id}-empty`}>
        {props.empty ?? `No ${props.caption.toLowerCase()} yet.`}
      </p>
    );
  return (
    <table id={props.id}>
      <caption class="visually-hidden">{props.caption}</caption>
      <thead>
        <tr>
          {props.columns.map((column) => (
            <th key={column.label} scope="col">
              {column.label}
            </th>
          ))}
          {props.actions ? (
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          ) : null}
        </tr>
      </thead>
      <tbody>
        {props.items.map((item) => (
          <tr key={item.id}>
            {props.columns.map((column, index) => (
              <td key={column.label} data-label={index === 0 ? undefined : column.label}>
                {column.cell(item)}
              </td>
            ))}
            {props.actions ? <td>{props.actions(item)}</td> : null}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * A list page: title and "New …" button (shown to those who may write `area`), `children` (e.g. a
 * search), the items' table, and `create(close, created)` rendered while the "New …" dialog is open.
 *
 * @example
 * ```tsx
 * <ListPage name="roles" title="Roles" area="roles" newLabel="New role" list={useApi(...)} columns={columns}
 *   create={(close, created) => <CreateRole onClose={close} onCreated={created} />} />
 * ```
 */
export function ListPage<T extends { readonly id: string }>(props: {
  /** Names the ids: `#{name}` (table), `#{name}-title`, `#new-{singular}-button`. */
  readonly name: string;
  readonly singular: string;
  readonly title: string;
  readonly area: Area;
  readonly newLabel: string;
  readonly list: {
    readonly data: { readonly items: readonly T[] } | undefined;
    readonly error?: string | undefined;
  };
  readonly columns: readonly Column<T>[];
  readonly create: (close: () => void, created: () => void) => ComponentChildren;
  readonly onCreated: () => void;
  readonly titleId?: string;
  readonly children?: ComponentChildren;
  readonly footer?: ComponentChildren;
  /** The empty state's text (see {@link ResourceTable}). */
  readonly empty?: string | undefined;
}) {
  const session = useSession();
  const [creating, setCreating] = useState(false);
  const titleId = props.titleId ?? `${props.name}-title`;
  return (
    <section aria-labelledby={titleId}>
      <div class="title-row">
        <h1 id={titleId}>{props.title}</h1>
        {can(session, props.area, true) ? (
          <button type="button" id={`new-${props.singular}-button`} onClick={() => setCreating(true)}>
            {props.newLabel}
          </button>
        ) : null}
      </div>
      {props.children}
      {props.list.data === undefined ? (
        <Loading error={props.list.error} />
      ) : (
        <ResourceTable
          id={props.name}
          caption={props.title}
          items={props.list.data.items}
          columns={props.columns}
          empty={props.empty}
        />
      )}
      {props.footer}
      {creating
        ? props.create(
            () => setCreating(false),
            () => {
              setCreating(false);
              props.onCreated();
            },
          )
        : null}
    </section>
  );
}
