/**
 * A change waiting for a fresh sign-in (catalogue F20, src/pending.ts), run in Node: what is
 * kept across the sign-in (ids only: never a password, secret or URL), what comes back (only for this
 * console's paths, only while young), and what each dangerous change is called.
 */
import { describe, expect, it } from 'vitest';
import {
  describeRequest,
  PENDING_LIFETIME_MS,
  type PendingChange,
  savePending,
  takePending,
} from '../src/pending.js';

function memoryStorage() {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, value),
    removeItem: (key: string) => void items.delete(key),
  };
}

const NOW = 1_800_000_000_000;
const pending = (over: Partial<PendingChange> = {}): PendingChange => ({
  userId: 'usr_1',
  request: { method: 'POST', path: '/users/usr_2/roles', body: { roleIds: ['rol_1'] } },
  action: 'Give the role',
  returnTo: '/console/users/usr_2',
  startedAt: NOW,
  ...over,
});

describe('a change waiting for a fresh sign-in', () => {
  it('F20: comes back once, as it was kept', () => {
    const storage = memoryStorage();
    savePending(storage, pending());
    expect(takePending(storage, '/console', NOW + 30_000)).toEqual(pending());
    expect(takePending(storage, '/console', NOW + 30_000)).toBeUndefined();
  });

  it('F20: keeps a body of ids only — a password, a secret or a URL is never stored', () => {
    for (const body of [
      { password: 'a long console passphrase' },
      { url: 'https://hooks.example.com/in?token=s3cret' },
      { roleIds: ['rol_1'], name: 'x' },
      ['rol_1'],
    ]) {
      const storage = memoryStorage();
      savePending(storage, pending({ request: { method: 'POST', path: '/webhooks', body } }));
      const text = [...storage.items.values()].join('');
      expect(text).not.toContain(JSON.stringify(body));
      const back = takePending(storage, '/console', NOW);
      expect(back?.request).toBeUndefined();
      expect(back?.action).toBe('Give the role');
    }
  });

  it('F20: is dropped when old, from the future, malformed, or returning outside the console', () => {
    const cases: [Partial<PendingChange> | string, number][] = [
      [{}, NOW + PENDING_LIFETIME_MS + 1],
      [{}, NOW - 1],
      [{ returnTo: '//evil.example/console/' }, NOW],
      [{ returnTo: 'https://evil.example/console/' }, NOW],
      [{ returnTo: '/other-app/' }, NOW],
      ['{not json', NOW],
      [JSON.stringify({ userId: 1 }), NOW],
    ];
    for (const [value, at] of cases) {
      const storage = memoryStorage();
      if (typeof value === 'string') storage.setItem('gatehouse-console:pending-change', value);
      else savePending(storage, pending(value));
      expect(takePending(storage, '/console', at), JSON.stringify(value)).toBeUndefined();
      expect(storage.items.size).toBe(0);
    }
  });

  it('F20: names each dangerous change, and where to go once a deletion is done', () => {
    expect(describeRequest({ method: 'POST', path: '/signing-keys/rotate' })).toEqual({
      action: 'Rotate the signing key',
      done: 'The signing key was rotated.',
      after: undefined,
    });
    expect(describeRequest({ method: 'DELETE', path: '/users/usr_1' }).after).toBe('/users');
    expect(describeRequest({ method: 'DELETE', path: '/applications/app_1' }).after).toBe('/applications');
    expect(describeRequest({ method: 'POST', path: '/roles/rol_1/scopes' }).action).toBe(
      'Add the scope to the role',
    );
    expect(describeRequest({ method: 'PATCH', path: '/users/usr_1' }).action).toBe('Make the change');
  });
});
