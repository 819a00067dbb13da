/** The foot of an edit form: its submit button and a "Saved." status announced to screen readers. */

/**
 * Submit button (disabled while `busy`) and the status line.
 *
 * @example
 * ```tsx
 * <SaveActions label="Save" busy={action.busy} saved={saved} />
 * ```
 */
export function SaveActions(props: {
  readonly label: string;
  readonly busy: boolean;
  readonly saved: boolean;
}) {
  return (
    <div class="actions left">
      <button type="submit" disabled={props.busy}>
        {props.label}
      </button>
      <span role="status" class="muted">
        {props.saved ? 'Saved.' : ''}
      </span>
    </div>
  );
}
