/** A dialog around a form: its fields, the failure of its action as a sentence, Cancel and submit. */
import type { ComponentChildren } from 'preact';
import { Dialog, ErrorText, formValues, useAction } from '../ui.js';

/**
 * A modal form. On submit, `action(values)` runs (its failure is shown in the dialog, which stays
 * open); when it resolves, `onDone(result)` gets what it resolved to.
 *
 * @example
 * ```tsx
 * <CreateDialog title="New role" id="new-role" submit="Create role" onClose={close}
 *   action={(values) => call(session, 'POST', '/roles', values)} onDone={created}>
 *   <label for="role-name">Name</label>
 *   <input id="role-name" name="name" required />
 * </CreateDialog>
 * ```
 */
export function CreateDialog<R>(props: {
  readonly title: string;
  readonly id: string;
  readonly submit: string;
  readonly onClose: () => void;
  readonly action: (values: Record<string, string>) => Promise<R>;
  readonly onDone: (result: R) => void;
  readonly children: ComponentChildren;
}) {
  const action = useAction();
  return (
    <Dialog title={props.title} onClose={props.onClose} id={props.id}>
      <form
        onSubmit={async (event) => {
          const values = formValues(event);
          let result: R | undefined;
          if (
            await action.run(async () => {
              result = await props.action(values);
            })
          )
            props.onDone(result as R);
        }}
      >
        {props.children}
        <ErrorText error={action.error} />
        <div class="actions">
          <button type="button" class="secondary" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" disabled={action.busy}>
            {props.submit}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
