/**
 * DPoP (RFC 9449) in the client: one key pair per client — generated with WebCrypto as
 * non-extractable, so its private key can sign but never be read — and oauth4webapi's DPoP handle,
 * which adds a proof to every token request and API call and remembers the server's `DPoP-Nonce` per
 * origin. A request refused with `use_dpop_nonce` is retried once with the new nonce.
 *
 * Where the key lives: in the client's memory; with `storage: 'sessionStorage'` in a browser, also in
 * IndexedDB (see `internal/key-store.ts`), so a page reload keeps the key its refresh token is bound
 * to. `signOut()` deletes it; the next sign-in gets a new key.
 *
 * @module
 */

import type { CryptoKeyPair } from 'oauth4webapi';
import * as oauth from 'oauth4webapi';
import { isBrowser } from './internal/env.js';
import { deleteKeyPair, hasIndexedDb, loadKeyPair, saveKeyPair } from './internal/key-store.js';
import type { ResolvedDpopOptions } from './options.js';

/**
 * The DPoP key of one client: created (or loaded) on first use.
 *
 * @example
 * ```ts
 * const key = new DpopKey(options.dpop, 'gatehouse:spa:', true);
 * const handle = await key.handle(client);
 * ```
 */
export class DpopKey {
  readonly #options: ResolvedDpopOptions;
  readonly #storageName: string | undefined;
  #handle: Promise<{ handle: oauth.DPoPHandle; keyPair: CryptoKeyPair }> | undefined;

  /**
   * @param persist - keep the key in IndexedDB (browser, `sessionStorage` sessions).
   */
  constructor(options: ResolvedDpopOptions, keyPrefix: string, persist: boolean) {
    this.#options = options;
    this.#storageName =
      persist && options.keyPair === undefined && isBrowser() && hasIndexedDb()
        ? `${keyPrefix}dpop`
        : undefined;
  }

  /** oauth4webapi's DPoP handle for `client`, with the key pair loaded or generated on first use. */
  async handle(client: oauth.Client): Promise<oauth.DPoPHandle> {
    if (this.#handle === undefined) {
      const pending = this.#create(client);
      this.#handle = pending;
      pending.catch(() => {
        if (this.#handle === pending) this.#handle = undefined;
      });
    }
    return (await this.#handle).handle;
  }

  /** RFC 7638 thumbprint of the public key (the `cnf.jkt` of the tokens bound to it). */
  async thumbprint(client: oauth.Client): Promise<string> {
    return (await this.handle(client)).calculateThumbprint();
  }

  /** Forget the key (and delete it from IndexedDB): the next token request uses a new one. */
  async forget(): Promise<void> {
    this.#handle = undefined;
    if (this.#storageName !== undefined) await deleteKeyPair(this.#storageName).catch(() => undefined);
  }

  async #create(client: oauth.Client): Promise<{ handle: oauth.DPoPHandle; keyPair: CryptoKeyPair }> {
    let keyPair = this.#options.keyPair;
    if (keyPair === undefined && this.#storageName !== undefined) {
      keyPair = await loadKeyPair(this.#storageName).catch(() => undefined);
    }
    if (keyPair === undefined) {
      keyPair = await oauth.generateKeyPair(this.#options.algorithm, { extractable: false });
      if (this.#storageName !== undefined)
        await saveKeyPair(this.#storageName, keyPair).catch(() => undefined);
    }
    return { handle: oauth.DPoP(client, keyPair), keyPair };
  }
}

/**
 * Run a request once more when the server answered `use_dpop_nonce` (the DPoP handle has remembered
 * the nonce it sent along): RFC 9449 §8 and §9.
 *
 * @example
 * ```ts
 * const response = await withNonceRetry(handle, async () => oauth.processRefreshTokenResponse(as, client, await send()));
 * ```
 */
export async function withNonceRetry<T>(
  handle: oauth.DPoPHandle | undefined,
  operation: () => Promise<T>,
): Promise<T> {
  try {
    return await operation();
  } catch (err) {
    if (handle === undefined || !oauth.isDPoPNonceError(err)) throw err;
    return operation();
  }
}
