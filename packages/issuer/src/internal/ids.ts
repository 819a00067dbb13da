/**
 * Random identifiers: a short type prefix and 20 characters of [0-9a-z] (about 103 bits), safe in URLs,
 * HTTP Basic credentials and log lines.
 *
 * @module
 */
import { randomInt } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

/** Prefixes per entity. User ids and client ids never share a prefix, so a `sub` cannot pose as a client. */
export const ID_PREFIXES = Object.freeze({
  user: 'usr_',
  application: 'app_',
  resource: 'res_',
  scope: 'scp_',
  role: 'rol_',
  subjectToken: 'stk_',
  personalAccessToken: 'pat_',
  auditEvent: 'evt_',
  webhookEndpoint: 'whk_',
});

/** A new random id for an entity type. */
export function newId(kind: keyof typeof ID_PREFIXES, length = 20): string {
  let out = ID_PREFIXES[kind];
  for (let i = 0; i < length; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

/** Current time in Unix epoch seconds. */
export const epoch = (): number => Math.floor(Date.now() / 1000);
