/**
 * The registry of extra grant types: `{ grantType, handler, parameters, dupes }` modules registered
 * with oidc-provider's `registerGrantType`. The standard grants (authorization code, refresh token,
 * client credentials) are oidc-provider's own; RFC 8693 token exchange is added here next.
 *
 * @module
 */
import type { Provider } from 'oidc-provider';
import type { Logger } from 'pino';
import type { ResolvedConfig } from '../config/schema.js';
import type { Store } from '../storage/store.js';

/** What a grant handler may use. */
export interface GrantContext {
  readonly store: Store;
  readonly config: ResolvedConfig;
  readonly log: Logger;
}

/**
 * One extra grant type.
 *
 * @example
 * ```ts
 * const grant: GrantModule = {
 *   grantType: 'urn:example:grant',
 *   parameters: ['resource', 'scope'],
 *   dupes: ['resource'],
 *   handler: ({ store }) => async (ctx) => { ctx.body = { error: 'unsupported' }; },
 * };
 * ```
 */
export interface GrantModule {
  /** The `grant_type` value. */
  readonly grantType: string;
  /** Parameters the token endpoint accepts for it. */
  readonly parameters: readonly string[];
  /** Parameters that may be repeated (e.g. `resource`, `audience`). */
  readonly dupes: readonly string[];
  /** Build the token-endpoint handler. */
  handler(context: GrantContext): Parameters<Provider['registerGrantType']>[1];
}

/**
 * Every extra grant, registered in order. Empty until token exchange lands.
 *
 * @example
 * ```ts
 * import { GRANTS } from '@gatehouse/issuer';
 * console.log(GRANTS.map((grant) => grant.grantType)); // []
 * ```
 */
export const GRANTS: readonly GrantModule[] = Object.freeze([]);

/** Register every module of {@link GRANTS} (or `grants`) with a provider. */
export function registerGrants(
  provider: Provider,
  context: GrantContext,
  grants: readonly GrantModule[] = GRANTS,
): void {
  for (const grant of grants) {
    provider.registerGrantType(
      grant.grantType,
      grant.handler(context),
      [...grant.parameters],
      [...grant.dupes],
    );
  }
}
