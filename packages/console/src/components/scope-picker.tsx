/**
 * What a role or a holder has (scopes of a role, roles of a user or M2M application) as chips, each
 * removable, and a picker to add one more — the controls only for those who may write.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ErrorText, Loading, useAction } from '../ui.js';

/** One choice of the picker. */
export interface Choice {
  readonly id: string;
  readonly label: string;
}

/**
 * Chips of `held` with a "Remove" button each, and a select of `candidates` with an "Add" button.
 *
 * @example
 * ```tsx
 * <ScopePicker listId="role-scopes" selectId="add-scope" noun="scope" write={write} held={scopes.data?.items}
 *   chip={(scope) => <code>{scope.name}</code>} nameOf={(scope) => scope.name} candidates={choices}
 *   add={(id) => call(session, 'POST', `${path}/scopes`, { scopeIds: [id] })}
 *   remove={(scope) => call(session, 'DELETE', `${path}/scopes/${scope.id}`)} onChange={scopes.reload} />
 * ```
 */
export function ScopePicker<T extends { readonly id: string }>(props: {
  readonly listId: string;
  readonly selectId: string;
  /** "scope" or "role": names the controls ("Add scope", "Remove scope x", "Choose a scope…"). */
  readonly noun: string;
  readonly empty: string;
  readonly write: boolean;
  readonly held: readonly T[] | undefined;
  readonly error?: string | undefined;
  readonly chip: (item: T) => ComponentChildren;
  readonly nameOf: (item: T) => string;
  /** Offered in the picker (those not held yet); `undefined` hides the picker. */
  readonly candidates: readonly Choice[] | undefined;
  readonly add: (id: string) => Promise<unknown>;
  readonly remove: (item: T) => Promise<unknown>;
  readonly onChange: () => void;
}) {
  const [choice, setChoice] = useState('');
  const action = useAction();
  return (
    <>
      {props.held === undefined ? (
        <Loading error={props.error} />
      ) : props.held.length === 0 ? (
        <p class="muted">{props.empty}</p>
      ) : (
        <ul class="chips" id={props.listId}>
          {props.held.map((item) => (
            <li key={item.id}>
              {props.chip(item)}
              {props.write ? (
                <button
                  type="button"
                  class="link"
                  aria-label={`Remove ${props.noun} ${props.nameOf(item)}`}
                  onClick={() =>
                    action.run(async () => {
                      await props.remove(item);
                      props.onChange();
                    })
                  }
                >
                  ✕
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      {props.write && props.candidates !== undefined && props.candidates.length > 0 ? (
        <form
          class="inline"
          onSubmit={async (event) => {
            event.preventDefault();
            if (choice === '') return;
            await action.run(async () => {
              await props.add(choice);
              setChoice('');
              props.onChange();
            });
          }}
        >
          <label for={props.selectId}>Add a {props.noun}</label>
          <select
            id={props.selectId}
            value={choice}
            onChange={(event) => setChoice((event.currentTarget as HTMLSelectElement).value)}
          >
            <option value="">Choose a {props.noun}…</option>
            {props.candidates.map((candidate) => (
              <option key={candidate.id} value={candidate.id}>
                {candidate.label}
              </option>
            ))}
          </select>
          <button type="submit" disabled={action.busy || choice === ''}>
            Add {props.noun}
          </button>
        </form>
      ) : null}
      <ErrorText error={action.error} />
    </>
  );
}
