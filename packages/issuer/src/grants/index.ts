/**
 * The registry of extra grant types: `{ grantType, handler, parameters, dupes }` modules registered
 * with oidc-provider's `registerGrantType`. The standard grants (authorization code, refresh token,
 * client credentials) are oidc-provider's own; RFC 8693 token exchange is added here.
 *
 * @module
 */
import type { Verifier } from '@gatehouse/core';
import type { Provider } from 'oidc-provider';
import type { Logger } from 'pino';
import type { ResolvedConfig } from '../config/schema.js';
import type { AuditTrail } from '../internal/audit.js';
import type { Store } from '../storage/store.js';
import type { FailureLimiter } from './failure-limiter.js';
import { tokenExchangeGrant } from './token-exchange.js';

/** What a grant handler may use. */
export interface GrantContext {
  readonly store: Store;
  readonly config: ResolvedConfig;
  readonly log: Logger;
  /** Records audit events. */
  readonly audit: AuditTrail;
  /** Failed redemptions of unknown tokens per client and address (catalogue B6). */
  readonly limiter: FailureLimiter;
  /** `@gatehouse/core` verifier for JWT actor tokens (this issuer, audience = the issuer identifier). */
  readonly actorVerifier: () => Verifier;
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
  /** Optional: subscribe to provider events once the grant is registered. */
  setup?(provider: Provider, context: GrantContext): void;
}

/**
 * Every extra grant, registered in order: RFC 8693 token exchange.
 *
 * @example
 * ```ts
 * import { GRANTS } from '@gatehouse/issuer';
 * console.log(GRANTS.map((grant) => grant.grantType)); // ['urn:ietf:params:oauth:grant-type:token-exchange']
 * ```
 */
export const GRANTS: readonly GrantModule[] = Object.freeze([tokenExchangeGrant]);

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
    grant.setup?.(provider, context);
  }
}
