/** The `customData` JSON object of a user or an application: shown to readers, edited by writers. */
import { useState } from 'preact/hooks';
import { call } from '../api.js';
import { useSession } from '../context.js';
import { ErrorText, formValues, useAction } from '../ui.js';

/** The text as a JSON object, or a sentence saying why it is not one. */
export function parseCustomData(text: string): { value: Record<string, unknown> } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text.trim() === '' ? '{}' : text);
  } catch {
    return { error: 'Custom data is not valid JSON.' };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { error: 'Custom data must be a JSON object, e.g. {"plan": "pro"}.' };
  return { value: value as Record<string, unknown> };
}

/**
 * A form (`#custom-data`) with the JSON of `value`; writers save it with `PATCH {path}`.
 *
 * @example
 * ```tsx
 * <CustomDataForm path={`/users/${user.id}`} value={user.customData} write={write} onSaved={reload} />
 * ```
 */
export function CustomDataForm(props: {
  readonly path: string;
  readonly value: Record<string, unknown>;
  readonly write: boolean;
  readonly onSaved: () => void;
}) {
  const session = useSession();
  const action = useAction();
  const [saved, setSaved] = useState(false);
  const [invalid, setInvalid] = useState<string | undefined>(undefined);
  return (
    <form
      id="custom-data"
      onSubmit={async (event) => {
        const parsed = parseCustomData(formValues(event).customData ?? '');
        setSaved(false);
        setInvalid('error' in parsed ? parsed.error : undefined);
        if ('error' in parsed) return;
        if (await action.run(() => call(session, 'PATCH', props.path, { customData: parsed.value }))) {
          setSaved(true);
          props.onSaved();
        }
      }}
    >
      <label for="custom-data-value">Custom data (JSON object)</label>
      <textarea
        id="custom-data-value"
        name="customData"
        rows={4}
        readOnly={!props.write}
        spellcheck={false}
        defaultValue={JSON.stringify(props.value, null, 2)}
      />
      <ErrorText error={invalid ?? action.error} />
      {props.write ? (
        <div class="actions left">
          <button type="submit" disabled={action.busy}>
            Save custom data
          </button>
          <span role="status" class="muted">
            {saved ? 'Saved.' : ''}
          </span>
        </div>
      ) : null}
    </form>
  );
}
