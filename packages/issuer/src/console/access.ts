/**
 * Who the Management API accepts besides machine-to-machine applications: a person signed in to the
 * admin console. The token must have been issued to the console's own application (`client_id`
 * `gatehouse-console`) for a user (`sub`) who exists and is not suspended, while the console is
 * enabled. What that person may do is what the token's scopes allow — they come from the user's roles
 * when the token was issued (see {@link CONSOLE_ROLES}), and every route checks them as for any token.
 *
 * @module
 */
import type { AuthInfo } from '@gatehouse/core';
import { DEFAULTS } from '../config/defaults.js';
import type { ResolvedConfig } from '../issuer-config.js';
import type { StoreTables } from '../storage/store.js';

/**
 * Whether `info` is a console user's token the Management API accepts.
 *
 * @example
 * ```ts
 * if (!(await isConsoleUser(store, config, info))) throw new AccessDeniedError('…');
 * ```
 */
export async function isConsoleUser(
  store: Pick<StoreTables, 'users'>,
  config: Pick<ResolvedConfig, 'console'>,
  info: Pick<AuthInfo, 'clientId' | 'subject'>,
): Promise<boolean> {
  if (!config.console.enabled || info.clientId !== DEFAULTS.console.clientId) return false;
  if (info.subject === undefined || info.subject === info.clientId) return false;
  const user = await store.users.get(info.subject);
  return user !== undefined && !user.suspended;
}
