/**
 * Webhook signing secrets at rest. The issuer must know a secret to sign with it, so it cannot keep a
 * digest as it does for client secrets; it keeps it sealed with AES-256-GCM under a 256-bit key held in
 * the store's settings (`DEFAULTS.webhooks.secretKeySetting`, generated on first use and shared by every
 * instance on the database), with the endpoint id as associated data, so a sealed secret copied onto
 * another endpoint does not open. This keeps secrets out of anything that reads the endpoints table
 * alone (exports, listings, logs); someone who can read the whole database can open them, as they can
 * read the private signing keys (docs/impersonation.md "Webhooks").
 *
 * @module
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { DEFAULTS } from '../config/defaults.js';
import type { Store } from '../storage/store.js';

const VERSION = 'v1';

/**
 * Seals and opens signing secrets of one store.
 *
 * @example
 * ```ts
 * const box = createSecretBox(store);
 * const sealed = await box.seal('whsec_…', endpointId);
 * (await box.open(sealed, endpointId)) === 'whsec_…'; // true
 * ```
 */
export interface SecretBox {
  seal(secret: string, endpointId: string): Promise<string>;
  /** Throws when `sealed` was not sealed for `endpointId` with this database's key. */
  open(sealed: string, endpointId: string): Promise<string>;
}

/**
 * The {@link SecretBox} of `store` (its key is read, or generated, once).
 *
 * @example
 * ```ts
 * const box = createSecretBox(issuer.store);
 * ```
 */
export function createSecretBox(store: Store): SecretBox {
  let key: Promise<Buffer> | undefined;
  const load = () => {
    key ??= store.settings
      .setIfAbsent(DEFAULTS.webhooks.secretKeySetting, randomBytes(32).toString('base64url'))
      .then((value) => Buffer.from(value, 'base64url'));
    return key;
  };
  return {
    async seal(secret, endpointId) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', await load(), iv).setAAD(Buffer.from(endpointId));
      const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      return [VERSION, iv, sealed, cipher.getAuthTag()]
        .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
        .join('.');
    },
    async open(sealed, endpointId) {
      const [version, iv, data, tag] = sealed.split('.');
      if (version !== VERSION || iv === undefined || data === undefined || tag === undefined)
        throw new TypeError('not a sealed webhook secret');
      const decipher = createDecipheriv('aes-256-gcm', await load(), Buffer.from(iv, 'base64url'))
        .setAAD(Buffer.from(endpointId))
        .setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString(
        'utf8',
      );
    },
  };
}
