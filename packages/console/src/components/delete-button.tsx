/**
 * "Delete …" on an item's page: a confirmation dialog naming what goes, the API's refusal shown there
 * as a sentence (the dialog stays open), and on success the way back to the list.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { call } from '../api.js';
import { useHref, useSession } from '../context.js';
import { ConfirmDialog } from '../ui.js';

/**
 * A danger button (`#delete-button`) that asks "Delete the {noun} {name}?" and then sends
 * `DELETE {path}`; afterwards the console shows `back` (the list).
 *
 * @example
 * ```tsx
 * <DeleteButton noun="user" name={user.username} path={`/users/${user.id}`} back="/users">
 *   <p>Their roles and personal access tokens go with them.</p>
 * </DeleteButton>
 * ```
 */
export function DeleteButton(props: {
  readonly noun: string;
  readonly name: string;
  /** The Management API path of the item. */
  readonly path: string;
  /** The console path to show once it is deleted. */
  readonly back: string;
  /** What else goes with it, for the dialog. */
  readonly children: ComponentChildren;
}) {
  const session = useSession();
  const href = useHref();
  const { route } = useLocation();
  const [asking, setAsking] = useState(false);
  return (
    <>
      <div class="actions left">
        <button type="button" class="danger" id="delete-button" onClick={() => setAsking(true)}>
          Delete {props.noun}
        </button>
      </div>
      {asking ? (
        <ConfirmDialog
          title={`Delete the ${props.noun} ${props.name}?`}
          confirm={`Delete ${props.noun}`}
          onClose={() => setAsking(false)}
          onConfirm={async () => {
            await call(session, 'DELETE', props.path);
            route(href(props.back));
          }}
        >
          {props.children}
          <p>This cannot be undone.</p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}
