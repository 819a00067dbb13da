/** The `customData` JSON object of a user or an application: shown to readers, edited by writers. */
import { useState } from 'preact/hooks';
import { call } from '../api.js';
import { useSession } from '../context.js';
import { parseJsonObject } from '../json-object.js';
import { ErrorText, formValues, useAction } from '../ui.js';
import { SaveActions } from './save-actions.js';

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
        const parsed = parseJsonObject(formValues(event).customData ?? '');
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
      {props.write ? <SaveActions label="Save custom data" busy={action.busy} saved={saved} /> : null}
    </form>
  );
}
