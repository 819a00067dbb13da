/** Signing keys: the active key and those still published after a rotation; rotate, after a confirmation. */
import { useState } from 'preact/hooks';
import { call } from '../api.js';
import { useSession } from '../context.js';
import { can } from '../session.js';
import { ConfirmDialog, Loading, useApi, when } from '../ui.js';

interface SigningKey {
  readonly kid: string;
  readonly alg: string;
  readonly status: 'active' | 'retired';
  readonly createdAt: string;
  readonly retiredAt: string | null;
  readonly expiresAt: string | null;
}

/** The page. */
export function KeysPage() {
  const session = useSession();
  const { data, error, reload } = useApi<{ items: SigningKey[] }>(session, '/signing-keys');
  const [confirming, setConfirming] = useState(false);
  return (
    <section aria-labelledby="keys-title">
      <div class="title-row">
        <h1 id="keys-title">Signing keys</h1>
        {can(session, 'keys', true) ? (
          <button type="button" class="danger" id="rotate-key" onClick={() => setConfirming(true)}>
            Rotate key
          </button>
        ) : null}
      </div>
      {data === undefined ? (
        <Loading error={error} />
      ) : (
        <table id="keys">
          <caption class="visually-hidden">Signing keys</caption>
          <thead>
            <tr>
              <th scope="col">Key id</th>
              <th scope="col">Algorithm</th>
              <th scope="col">Status</th>
              <th scope="col">Created</th>
              <th scope="col">Published until</th>
            </tr>
          </thead>
          <tbody>
            {data.items.map((key) => (
              <tr key={key.kid} data-status={key.status}>
                <td>
                  <code>{key.kid}</code>
                </td>
                <td data-label="Algorithm">{key.alg}</td>
                <td data-label="Status">
                  {key.status === 'active' ? <span class="badge good">Active</span> : 'Retired'}
                </td>
                <td data-label="Created">{when(key.createdAt)}</td>
                <td data-label="Published until">{key.expiresAt ? when(key.expiresAt) : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {confirming ? (
        <ConfirmDialog
          title="Rotate the signing key?"
          confirm="Rotate now"
          onClose={() => setConfirming(false)}
          onConfirm={async () => {
            await call(session, 'POST', '/signing-keys/rotate');
            reload();
          }}
        >
          <p>
            A new key signs every token from now on. The current key stays published for the grace period, so
            tokens it signed keep working until they expire.
          </p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
