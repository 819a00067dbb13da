/**
 * Step 7 of the verifier.ts order: a verified token against what is required of it — the delegation
 * policy of the call, RFC 9470 step-up (the verifier's, then the call's: 401 before any 403), the
 * verifier's required scopes, and the call's scopes and roles ({@link VerifyOptions}).
 *
 * @module
 */

import {
  type ErrorContext,
  ForbiddenError,
  InsufficientRoleError,
  InsufficientScopeError,
} from './errors.js';
import type { ResolvedOptions } from './options.js';
import { hasRoles, type RoleMode, toRoleList } from './roles.js';
import { hasScopes, type ScopeMode, toScopeList } from './scopes.js';
import { checkStepUp, resolveStepUp, type StepUpOptions, type StepUpRequirement } from './step-up.js';
import type { AuthInfo } from './types.js';

/**
 * Per-call requirements; `acrValues` and `maxAge` are RFC 9470 step-up ({@link StepUpOptions}).
 *
 * @example
 * ```ts
 * const call: VerifyOptions = { scopes: ['read:orders'], roles: 'support', allowDelegation: false };
 * const auth = await verifier.verify(token, call);
 * ```
 */
export interface VerifyOptions extends StepUpOptions {
  /** Scopes this call needs, as a list or a space-separated string. */
  scopes?: string | readonly string[];
  /** `all` (default): every scope; `any`: at least one. */
  scopeMode?: ScopeMode;
  /** Roles this call needs (from the token's `roles` claim): a role name or a list. */
  roles?: string | readonly string[];
  /** `all` (default): every role; `any`: at least one. */
  roleMode?: RoleMode;
  /** Accept tokens carrying `act` (delegation / impersonation). Default `true`; `false` answers 403. */
  allowDelegation?: boolean;
}

/** Step-up requirements of call options, validated once per options object (routes reuse theirs). */
const stepUps = new WeakMap<VerifyOptions, StepUpRequirement | undefined>();
function callStepUp(call: VerifyOptions): StepUpRequirement | undefined {
  if (call.acrValues === undefined && call.maxAge === undefined) return undefined;
  if (stepUps.has(call)) return stepUps.get(call);
  const requirement = resolveStepUp(call);
  // Only a frozen object (what resolveScopeRequirement returns) cannot change after it is remembered.
  if (Object.isFrozen(call)) stepUps.set(call, requirement);
  return requirement;
}

/**
 * The step 7 check of one verifier: throws the `AuthError` of the first requirement `info` does not
 * meet. `call` must be checked already (call-options.ts); errors of a DPoP-bound token carry the
 * `dpop` context, so that their challenge names the `DPoP` scheme.
 *
 * @example
 * ```ts
 * const authorize = createAuthorizer(resolved, { bearer: context, dpop: dpopContext });
 * authorize(info, { scopes: 'read:orders' }); // throws InsufficientScopeError without the scope
 * ```
 */
export function createAuthorizer(
  resolved: ResolvedOptions,
  contexts: { readonly bearer: ErrorContext; readonly dpop: ErrorContext },
): (info: AuthInfo, call: VerifyOptions) => void {
  return function authorizeChecked(info: AuthInfo, call: VerifyOptions): void {
    const ctx = info.confirmation?.jkt === undefined ? contexts.bearer : contexts.dpop;
    if (call.allowDelegation === false && info.delegated)
      throw new ForbiddenError('delegation_not_allowed', ctx);
    // Step-up (401) before scopes (403): a stronger sign-in is asked for before authorization is judged.
    if (resolved.stepUp !== undefined)
      checkStepUp(info, resolved.stepUp, Date.now() / 1000, resolved.clockTolerance, ctx);
    const stepUp = callStepUp(call);
    if (stepUp !== undefined) checkStepUp(info, stepUp, Date.now() / 1000, resolved.clockTolerance, ctx);
    if (resolved.requiredScopes.length > 0 && !hasScopes(info.scopes, resolved.requiredScopes, 'all')) {
      throw new InsufficientScopeError(resolved.requiredScopes, 'all', ctx);
    }
    if (call.scopes !== undefined) {
      const required = toScopeList(call.scopes);
      const mode = call.scopeMode ?? 'all';
      if (!hasScopes(info.scopes, required, mode)) throw new InsufficientScopeError(required, mode, ctx);
    }
    if (call.roles !== undefined) {
      const required = toRoleList(call.roles);
      const mode = call.roleMode ?? 'all';
      if (!hasRoles(info.roles, required, mode)) throw new InsufficientRoleError(required, mode, ctx);
    }
  };
}
