/** The sign-in and session records in storage: round trips, one-time pending sign-ins, corrupt data. */
import { describe, expect, it } from 'vitest';
import { Records } from '../../src/internal/records.js';
import { type ClientStorage, createMemoryStorage } from '../../src/storage.js';

const CLAIMS = { iss: 'https://id.example.com/oidc', sub: 'usr_1', aud: 'console', exp: 2, iat: 1 };
const PENDING = { state: 's', codeVerifier: 'v', nonce: 'n', redirectUri: 'https://a.example/cb' };

/** An async storage, as a custom store may be. */
function asyncStorage(): ClientStorage & { items: Map<string, string> } {
  const items = new Map<string, string>();
  return {
    items,
    getItem: async (key) => items.get(key) ?? null,
    setItem: async (key, value) => {
      items.set(key, value);
    },
    removeItem: async (key) => {
      items.delete(key);
    },
  };
}

describe('Records', () => {
  it('round-trips the session under the client prefix (async storage too)', async () => {
    const storage = asyncStorage();
    const records = new Records(storage, 'gatehouse:console:');
    expect(await records.getSession()).toBeUndefined();
    await records.setSession({ refreshToken: 'rt', idToken: 'id', claims: CLAIMS });
    expect([...storage.items.keys()]).toEqual(['gatehouse:console:session']);
    expect(await records.getSession()).toEqual({ refreshToken: 'rt', idToken: 'id', claims: CLAIMS });
    await records.clearSession();
    expect(storage.items.size).toBe(0);
  });

  it('keeps a session without a refresh token', async () => {
    const records = new Records(createMemoryStorage(), 'p:');
    await records.setSession({ refreshToken: undefined, idToken: 'id', claims: CLAIMS });
    expect((await records.getSession())?.refreshToken).toBeUndefined();
  });

  it('hands out a pending sign-in once', async () => {
    const records = new Records(createMemoryStorage(), 'p:');
    await records.setPendingSignIn(PENDING);
    expect(await records.getPendingSignIn()).toEqual(PENDING);
    expect(await records.takePendingSignIn()).toEqual(PENDING);
    expect(await records.takePendingSignIn()).toBeUndefined();
  });

  it.each([
    ['not JSON', '{'],
    ['not an object', '"x"'],
    ['no id token', JSON.stringify({ refreshToken: 'rt', claims: CLAIMS })],
    ['a bad refresh token', JSON.stringify({ refreshToken: 7, idToken: 'id', claims: CLAIMS })],
    ['claims without sub', JSON.stringify({ idToken: 'id', claims: { iss: 'x' } })],
    ['null claims', JSON.stringify({ idToken: 'id', claims: null })],
  ])('drops a session that is %s', async (_label, raw) => {
    const storage = createMemoryStorage();
    storage.setItem('p:session', raw);
    const records = new Records(storage, 'p:');
    expect(await records.getSession()).toBeUndefined();
    expect(storage.getItem('p:session')).toBeNull();
  });

  it('drops a pending sign-in that lacks a field', async () => {
    const storage = createMemoryStorage();
    storage.setItem('p:sign-in', JSON.stringify({ ...PENDING, codeVerifier: '' }));
    expect(await new Records(storage, 'p:').getPendingSignIn()).toBeUndefined();
    storage.setItem('p:sign-in', 'null');
    expect(await new Records(storage, 'p:').getPendingSignIn()).toBeUndefined();
  });
});
