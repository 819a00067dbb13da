/**
 * Options every framework adapter shares (`@gatehouse/express`, `@gatehouse/fastify`, `@gatehouse/koa`),
 * validated once here so the adapters hold no validation logic and behave identically. A bad option
 * throws a `TypeError` naming it when the middleware or plugin is created, never at request time.
 *
 * @module
 */

import type { VerifyOptions } from './authorization.js';
import { callOptions } from './call-options.js';
import { rejectUnknownKeys } from './internal/known-keys.js';
import { VERIFIER_OPTIONS } from './options.js';
import { publicOrigin } from './request-binding.js';
import {
  createProtectedResource,
  type ProtectedResource,
  type ProtectedResourceOptions,
} from './resource-metadata.js';
import { type RoleMode, toRoleList } from './roles.js';
import { type ScopeMode, toScopeList } from './scopes.js';
import { resolveStepUp, STEP_UP_OPTIONS, type StepUpOptions } from './step-up.js';

/** Default value of every shared adapter option. */
export const ADAPTER_DEFAULTS = Object.freeze({
  /** Requests without a token are refused with a bare 401 challenge: protection is the safe default. */
  optional: false,
  /** Delegated tokens (`act`) are valid tokens; routes opt out one by one. */
  allowDelegation: true,
  /** The adapter answers with RFC 6750 JSON itself, so no framework HTML page or 500 can leak. */
  handleErrors: true,
  /** `requireScope()` needs every listed scope. */
  mode: 'all' as ScopeMode,
  /** Keys are fetched at the first request; `true` fetches them when the middleware is created. */
  warmUp: false,
});

/** Adapter switches on top of the verifier (or shared-verifier) options. */
export interface AdapterSwitches {
  /**
   * The API's public origin (`https://api.example.com`), which DPoP proofs' `htu` must name. Set it
   * behind a proxy or load balancer; without it, the origin is the one the framework reports for the
   * request (its trust-proxy setting decides whether `X-Forwarded-Proto`/`-Host` count).
   */
  origin?: string;
  /** Let requests without a token through as anonymous (a bad token is still refused). Default `false`. */
  optional?: boolean;
  /** Accept delegated (impersonation) tokens. Default `true`; `false` answers 403. */
  allowDelegation?: boolean;
  /** Answer errors with RFC 6750 JSON; `false` hands them to the framework's error handling. Default `true`. */
  handleErrors?: boolean;
  /**
   * Fetch the signing keys as soon as the middleware (or plugin) is created, so a misconfiguration is
   * reported at start-up (Fastify: registration fails; Express, Koa: `await auth.ready()`). Default `false`.
   */
  warmUp?: boolean;
}

/** Options of `requireScope()` in every adapter; `acrValues` and `maxAge` add RFC 9470 step-up. */
export interface ScopeRequirementOptions extends StepUpOptions {
  /** `all` (default): every scope; `any`: at least one. */
  mode?: ScopeMode;
  /** Accept delegated (impersonation) tokens on this route. Default `true`. */
  allowDelegation?: boolean;
}

/** Options of `requireRole()` in every adapter. */
export interface RoleRequirementOptions {
  /** `all` (default): every role; `any`: at least one. */
  mode?: RoleMode;
  /** Accept delegated (impersonation) tokens on this route. Default `true`. */
  allowDelegation?: boolean;
}

/** Adapter options after validation: the verifier, the RFC 9728 metadata and the switches. */
export interface ResolvedAdapterOptions extends ProtectedResource {
  /** `scheme://host[:port]` without a trailing slash, or `undefined` to use the framework's view. */
  readonly origin: string | undefined;
  readonly optional: boolean;
  readonly allowDelegation: boolean;
  readonly handleErrors: boolean;
  readonly warmUp: boolean;
}

/**
 * Every key an adapter's options object may hold: verifier options, the shared verifier, the switches.
 * An adapter with options of its own refuses typos against this list plus its own names.
 *
 * @example
 * ```ts
 * rejectUnknownOptions(options, [...ADAPTER_OPTIONS, 'globalGuard']);
 * ```
 */
export const ADAPTER_OPTIONS: readonly string[] = Object.freeze([
  ...VERIFIER_OPTIONS,
  'verifier',
  ...Object.keys({
    origin: 1,
    optional: 1,
    allowDelegation: 1,
    handleErrors: 1,
    warmUp: 1,
  } satisfies Record<keyof AdapterSwitches, 1>),
]);
const SCOPE_OPTIONS = [
  ...Object.keys({ mode: 1, allowDelegation: 1 } satisfies Record<
    Exclude<keyof ScopeRequirementOptions, keyof StepUpOptions>,
    1
  >),
  ...STEP_UP_OPTIONS,
];

// Kept apart from SCOPE_OPTIONS: an option meant for scope requirements is never accepted here.
const ROLE_OPTIONS = Object.keys({ mode: 1, allowDelegation: 1 } satisfies Record<
  keyof RoleRequirementOptions,
  1
>);

function flag(value: unknown, option: 'optional' | 'allowDelegation' | 'handleErrors' | 'warmUp'): boolean {
  if (value === undefined) return ADAPTER_DEFAULTS[option];
  if (typeof value !== 'boolean') throw new TypeError(`"${option}" option must be a boolean`);
  return value;
}

/**
 * Validate adapter options and create (or adopt) the verifier.
 *
 * @example
 * ```ts
 * const { verifier, metadata, optional } = resolveAdapterOptions({ issuer, audience, optional: true });
 * ```
 */
export function resolveAdapterOptions(
  options: ProtectedResourceOptions & AdapterSwitches,
): ResolvedAdapterOptions {
  if (options === null || typeof options !== 'object') throw new TypeError('options must be an object');
  rejectUnknownKeys(options, ADAPTER_OPTIONS);
  const resource = createProtectedResource(options);
  return Object.freeze({
    ...resource,
    origin: publicOrigin(options.origin),
    optional: flag(options.optional, 'optional'),
    allowDelegation: flag(options.allowDelegation, 'allowDelegation'),
    handleErrors: flag(options.handleErrors, 'handleErrors'),
    warmUp: flag(options.warmUp, 'warmUp'),
  });
}

/**
 * Validate `requireScope()` arguments into the per-call requirements of `verifier.authorize()`.
 *
 * @example
 * ```ts
 * resolveScopeRequirement('read:orders write:orders', { mode: 'any' });
 * // { scopes: ['read:orders', 'write:orders'], scopeMode: 'any', allowDelegation: true }
 * resolveScopeRequirement('payments:send', { acrValues: ['urn:gatehouse:acr:mfa'], maxAge: 300 });
 * // { scopes: ['payments:send'], …, acrValues: ['urn:gatehouse:acr:mfa'], maxAge: 300 }
 * ```
 */
export function resolveScopeRequirement(
  scopes: string | readonly string[],
  options: ScopeRequirementOptions = {},
): VerifyOptions {
  if (scopes === undefined) throw new TypeError('"scopes" must be a scope string or an array of scopes');
  if (options === null || typeof options !== 'object')
    throw new TypeError('requireScope options must be an object');
  rejectUnknownKeys(options, SCOPE_OPTIONS);
  const mode = options.mode ?? ADAPTER_DEFAULTS.mode;
  if (mode !== 'all' && mode !== 'any') throw new TypeError('"mode" option must be "all" or "any"');
  let list: readonly string[];
  try {
    list = toScopeList(scopes);
  } catch (error) {
    if (typeof scopes === 'string' || (Array.isArray(scopes) && scopes.length === 0))
      throw new TypeError(
        '"scopes" must name at least one scope (for a route without a scope, require authentication only)',
      );
    throw error;
  }
  const stepUp = resolveStepUp(options);
  return callOptions({
    scopes: list,
    scopeMode: mode,
    allowDelegation: flag(options.allowDelegation, 'allowDelegation'),
    ...(stepUp === undefined ? {} : { acrValues: stepUp.acrValues, maxAge: stepUp.maxAge }),
  });
}

/**
 * Validate `requireRole()` arguments into the per-call requirements of `verifier.authorize()`: the
 * roles the token's `roles` claim must hold (403 `insufficient_scope`, reason `insufficient_role`).
 *
 * @example
 * ```ts
 * resolveRoleRequirement(['admin', 'auditor'], { mode: 'any' });
 * // { roles: ['admin', 'auditor'], roleMode: 'any', allowDelegation: true }
 * ```
 */
export function resolveRoleRequirement(
  roles: string | readonly string[],
  options: RoleRequirementOptions = {},
): VerifyOptions {
  if (options === null || typeof options !== 'object')
    throw new TypeError('requireRole options must be an object');
  rejectUnknownKeys(options, ROLE_OPTIONS);
  const mode = options.mode ?? ADAPTER_DEFAULTS.mode;
  if (mode !== 'all' && mode !== 'any') throw new TypeError('"mode" option must be "all" or "any"');
  return callOptions({
    roles: toRoleList(roles),
    roleMode: mode,
    allowDelegation: flag(options.allowDelegation, 'allowDelegation'),
  });
}
