/**
 * Where a browser client keeps its DPoP key pair across page reloads: IndexedDB, which stores a
 * `CryptoKeyPair` as it is (structured clone) without ever exposing the private key — it was generated
 * non-extractable, so no script can read it, only use it to sign. Used when the client keeps its
 * session in `sessionStorage` (the refresh token there is bound to the key, so the key must outlive a
 * reload just as the token does). Everywhere else (Node, `'memory'` storage) the key lives in memory.
 *
 * @module
 */

import type { CryptoKeyPair } from 'oauth4webapi';

const DATABASE = 'gatehouse-client';
const STORE = 'dpop-keys';

/** The few IndexedDB members used here (the package is compiled without the DOM library). */
interface IdbRequest<T> {
  readonly result: T;
  readonly error: unknown;
  onsuccess: (() => void) | null;
  onerror: (() => void) | null;
  onupgradeneeded?: (() => void) | null;
}
interface IdbObjectStore {
  get(key: string): IdbRequest<unknown>;
  put(value: unknown, key: string): IdbRequest<unknown>;
  delete(key: string): IdbRequest<unknown>;
}
interface IdbTransaction {
  readonly error: unknown;
  objectStore(name: string): IdbObjectStore;
  oncomplete: (() => void) | null;
  onerror: (() => void) | null;
  onabort: (() => void) | null;
}
interface IdbDatabase {
  createObjectStore(name: string): unknown;
  transaction(name: string, mode: 'readonly' | 'readwrite'): IdbTransaction;
  close(): void;
}
interface IdbFactory {
  open(name: string, version: number): IdbRequest<IdbDatabase>;
}

function factory(): IdbFactory | undefined {
  return (globalThis as { indexedDB?: IdbFactory }).indexedDB ?? undefined;
}

/**
 * Whether IndexedDB is available here (a browser page or worker; not Node).
 *
 * @example
 * ```ts
 * if (hasIndexedDb()) await saveKeyPair(name, keyPair);
 * ```
 */
export function hasIndexedDb(): boolean {
  return factory() !== undefined;
}

function open(): Promise<IdbDatabase> {
  return new Promise((resolve, reject) => {
    const request = factory()!.open(DATABASE, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

async function run<T>(
  mode: 'readonly' | 'readwrite',
  action: (store: IdbObjectStore) => IdbRequest<T>,
): Promise<T> {
  const db = await open();
  try {
    return await new Promise<T>((resolve, reject) => {
      const transaction = db.transaction(STORE, mode);
      const request = action(transaction.objectStore(STORE));
      transaction.oncomplete = () => resolve(request.result);
      transaction.onerror = () => reject(transaction.error);
      transaction.onabort = () => reject(transaction.error);
    });
  } finally {
    db.close();
  }
}

/**
 * The key pair stored under `name`, if any.
 *
 * @example
 * ```ts
 * const keyPair = await loadKeyPair('gatehouse:spa:dpop');
 * ```
 */
export async function loadKeyPair(name: string): Promise<CryptoKeyPair | undefined> {
  const found = await run('readonly', (store) => store.get(name));
  const pair = found as Partial<CryptoKeyPair> | undefined;
  return pair?.privateKey instanceof CryptoKey && pair.publicKey instanceof CryptoKey
    ? (pair as CryptoKeyPair)
    : undefined;
}

/**
 * Store `keyPair` under `name` (replacing any).
 *
 * @example
 * ```ts
 * await saveKeyPair('gatehouse:spa:dpop', await oauth.generateKeyPair('ES256'));
 * ```
 */
export async function saveKeyPair(name: string, keyPair: CryptoKeyPair): Promise<void> {
  await run('readwrite', (store) => store.put(keyPair, name));
}

/**
 * Delete the key pair stored under `name`.
 *
 * @example
 * ```ts
 * await deleteKeyPair('gatehouse:spa:dpop');
 * ```
 */
export async function deleteKeyPair(name: string): Promise<void> {
  await run('readwrite', (store) => store.delete(name));
}
