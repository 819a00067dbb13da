/**
 * Small shared pieces: data loading, error and status messages, a modal dialog on the native
 * `<dialog>` element (focus is trapped and restored by the browser; Escape closes it), a dialog for a
 * value shown once, and a confirmation dialog.
 */
import type { ComponentChildren } from 'preact';
import { useCallback, useContext, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, call, StepUpRequired } from './api.js';
import { StepUpContext } from './context.js';
import type { Session } from './session.js';

/** Load `path` from the Management API; `reload()` fetches it again. */
export function useApi<T>(session: Session, path: string | undefined) {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [version, setVersion] = useState(0);
  useEffect(() => {
    if (path === undefined) return;
    let live = true;
    setError(undefined);
    call<T>(session, 'GET', path).then(
      (value) => live && setData(value),
      (err: unknown) => live && setError(messageOf(err)),
    );
    return () => {
      live = false;
    };
  }, [session, path, version]);
  const reload = useCallback(() => setVersion((v) => v + 1), []);
  return { data, error, reload };
}

/** A readable message for anything thrown. */
export function messageOf(err: unknown): string {
  return err instanceof ApiError ? err.message : `Something went wrong: ${(err as Error)?.message ?? err}`;
}

/**
 * Run an action, showing its failure; resolves to whether it worked. A change that needs a more recent
 * sign-in also opens the console's "Sign in again" dialog.
 */
export function useAction(): {
  readonly error: string | undefined;
  readonly busy: boolean;
  run(action: () => Promise<unknown>): Promise<boolean>;
  clear(): void;
} {
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const stepUp = useContext(StepUpContext);
  return {
    error,
    busy,
    clear: () => setError(undefined),
    async run(action) {
      setBusy(true);
      setError(undefined);
      try {
        await action();
        return true;
      } catch (err) {
        setError(messageOf(err));
        if (err instanceof StepUpRequired) stepUp?.(err);
        return false;
      } finally {
        setBusy(false);
      }
    },
  };
}

/** An error sentence, announced to screen readers. */
export function ErrorText({ error }: { readonly error: string | undefined }) {
  if (error === undefined) return null;
  return (
    <p class="error" role="alert">
      {error}
    </p>
  );
}

/** "Loading…" until there is data. */
export function Loading({ error }: { readonly error?: string | undefined }) {
  return error === undefined ? (
    <p class="muted" role="status">
      Loading…
    </p>
  ) : (
    <ErrorText error={error} />
  );
}

/** A modal dialog, open while mounted. `onClose` runs on Escape, Cancel and Close. */
export function Dialog(props: {
  readonly title: string;
  readonly onClose: () => void;
  readonly children: ComponentChildren;
  readonly id?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current!;
    if (!dialog.open) dialog.showModal();
    return () => dialog.close();
  }, []);
  const titleId = `${props.id ?? 'dialog'}-title`;
  return (
    <dialog
      ref={ref}
      id={props.id}
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        props.onClose();
      }}
      // The browser may close it by itself (a second Escape): the caller's state follows.
      onClose={() => props.onClose()}
    >
      <h2 id={titleId}>{props.title}</h2>
      {props.children}
    </dialog>
  );
}

/**
 * A secret shown once (client secret, personal access token). The value lives only in this
 * component's props: closing the dialog unmounts it, and the caller drops its copy in `onClose`.
 */
export function SecretDialog(props: {
  readonly title: string;
  readonly label: string;
  readonly value: string;
  readonly onClose: () => void;
}) {
  const [copied, setCopied] = useState(false);
  return (
    <Dialog title={props.title} onClose={props.onClose} id="secret">
      <p>Copy it now: it is shown only once, and only its digest is stored.</p>
      <label for="secret-value">{props.label}</label>
      <input
        id="secret-value"
        class="secret"
        readOnly
        value={props.value}
        autocomplete="off"
        spellcheck={false}
      />
      <div class="actions">
        <button
          type="button"
          class="secondary"
          onClick={async () => {
            await navigator.clipboard?.writeText(props.value).catch(() => undefined);
            setCopied(true);
          }}
        >
          Copy
        </button>
        <button type="button" onClick={props.onClose}>
          Done
        </button>
      </div>
      <p class="muted" role="status">
        {copied ? 'Copied.' : ''}
      </p>
    </Dialog>
  );
}

/** Ask before doing something that cannot be undone. */
export function ConfirmDialog(props: {
  readonly title: string;
  readonly children: ComponentChildren;
  readonly confirm: string;
  readonly onConfirm: () => Promise<unknown>;
  readonly onClose: () => void;
}) {
  const action = useAction();
  return (
    <Dialog title={props.title} onClose={props.onClose} id="confirm">
      {props.children}
      <ErrorText error={action.error} />
      <div class="actions">
        <button type="button" class="secondary" onClick={props.onClose}>
          Cancel
        </button>
        <button
          type="button"
          class="danger"
          disabled={action.busy}
          onClick={async () => {
            if (await action.run(props.onConfirm)) props.onClose();
          }}
        >
          {props.confirm}
        </button>
      </div>
    </Dialog>
  );
}

/** Form field values by name. */
export function formValues(event: Event): Record<string, string> {
  event.preventDefault();
  const form = event.currentTarget as HTMLFormElement;
  const values: Record<string, string> = {};
  for (const [name, value] of new FormData(form)) values[name] = String(value);
  return values;
}

/** Lines of a textarea, trimmed, without blanks. */
export const lines = (text: string | undefined): string[] =>
  (text ?? '')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);

/** A date for people, in their locale. */
export const when = (iso: string | null | undefined): string =>
  iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' }) : '—';
