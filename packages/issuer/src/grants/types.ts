/**
 * The grant-module contract: what a grant handler may use ({@link GrantContext}) and what a grant
 * module provides ({@link GrantModule}). Shared by the registry (`index.ts`) and every grant, so
 * neither imports the other's file.
 *
 * @module
 */
import type { Verifier } from '@gatehouse/core';
import type { Provider } from 'oidc-provider';
import type { Logger } from 'pino';
import type { AuditTrail } from '../internal/audit.js';
import type { ResolvedConfig } from '../issuer-config.js';
import type { Store } from '../storage/store.js';
import type { FailureLimiter } from './failure-limiter.js';

/**
 * What a grant handler may use.
 *
 * @example
 * ```ts
 * const handler = (context: GrantContext) => async (ctx) => context.log.info({ grant: ctx.oidc.params?.grant_type });
 * ```
 */
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
