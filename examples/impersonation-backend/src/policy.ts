/**
 * Who may impersonate whom, and what a request must say. Free of any framework.
 *
 * The access token already proved two things before the policy runs: the caller is a signed-in user of
 * this issuer, and their roles grant the impersonation scope. The policy adds the rules only this
 * business knows; the default one refuses impersonating yourself and any protected account.
 *
 * @module
 */

/** A validated `POST /impersonations` body. */
export interface ImpersonationRequest {
  /** The user to act as (the issuer's user id). */
  readonly userId: string;
  /** Why, in words: recorded in the audit trail. */
  readonly reason: string;
  /** The support ticket the work belongs to, e.g. `SUP-1234`. */
  readonly ticketId: string;
}

/** What the policy is asked. */
export interface PolicyInput extends ImpersonationRequest {
  /** The support engineer (`sub` of their access token). */
  readonly engineerId: string;
}

/** The policy's answer; `reason` is sent back to the caller, so it must not leak anything. */
export type PolicyDecision = { readonly allow: true } | { readonly allow: false; readonly reason: string };

/** A policy: may this engineer impersonate this user now? */
export type ImpersonationPolicy = (input: PolicyInput) => PolicyDecision | Promise<PolicyDecision>;

/** Outcome of {@link parseImpersonationRequest}. */
export type ParseResult =
  | { readonly ok: true; readonly value: ImpersonationRequest }
  | { readonly ok: false; readonly error: string };

/** Limits of a valid request. */
export const REQUEST_LIMITS = Object.freeze({
  /** Longest user id, in characters. */
  userIdMaxLength: 200,
  /** Shortest and longest reason, in characters. */
  reasonMinLength: 3,
  reasonMaxLength: 500,
  /** Ticket ids look like `SUP-1234`: letters, a dash, digits; at most 32 characters. */
  ticketIdPattern: /^[A-Z][A-Z0-9]{0,15}-\d{1,15}$/,
});

/**
 * Validate a parsed JSON body: exactly `{ userId, reason, ticketId }`. Messages never echo the input.
 *
 * @example
 * ```ts
 * parseImpersonationRequest({ userId: 'usr_alice', reason: 'cannot see an order', ticketId: 'SUP-1234' });
 * // { ok: true, value: { userId: 'usr_alice', reason: 'cannot see an order', ticketId: 'SUP-1234' } }
 * parseImpersonationRequest({ userId: 'usr_alice' }); // { ok: false, error: '"reason" must be …' }
 * ```
 */
export function parseImpersonationRequest(body: unknown): ParseResult {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return { ok: false, error: 'body must be a JSON object { userId, reason, ticketId }' };
  }
  const { userId, reason, ticketId, ...rest } = body as Record<string, unknown>;
  if (Object.keys(rest).length > 0) {
    return { ok: false, error: 'only "userId", "reason" and "ticketId" are allowed' };
  }
  if (typeof userId !== 'string' || userId === '' || userId.length > REQUEST_LIMITS.userIdMaxLength) {
    return {
      ok: false,
      error: `"userId" must be a non-empty string of at most ${REQUEST_LIMITS.userIdMaxLength} characters`,
    };
  }
  const trimmed = typeof reason === 'string' ? reason.trim() : '';
  if (trimmed.length < REQUEST_LIMITS.reasonMinLength || trimmed.length > REQUEST_LIMITS.reasonMaxLength) {
    return {
      ok: false,
      error: `"reason" must be ${REQUEST_LIMITS.reasonMinLength}–${REQUEST_LIMITS.reasonMaxLength} characters`,
    };
  }
  if (typeof ticketId !== 'string' || !REQUEST_LIMITS.ticketIdPattern.test(ticketId)) {
    return { ok: false, error: '"ticketId" must look like SUP-1234' };
  }
  return { ok: true, value: { userId, reason: trimmed, ticketId } };
}

/**
 * The default policy: nobody impersonates themselves, and nobody impersonates a protected account
 * (administrators, other engineers).
 *
 * @example
 * ```ts
 * const policy = defaultPolicy({ protectedUserIds: ['usr_admin'] });
 * await policy({ engineerId: 'usr_sam', userId: 'usr_admin', reason: 'x', ticketId: 'SUP-1' });
 * // { allow: false, reason: 'this account cannot be impersonated' }
 * ```
 */
export function defaultPolicy(options: { protectedUserIds?: readonly string[] } = {}): ImpersonationPolicy {
  const protectedIds = new Set(options.protectedUserIds ?? []);
  return ({ engineerId, userId }) => {
    if (userId === engineerId) return { allow: false, reason: 'you cannot impersonate yourself' };
    if (protectedIds.has(userId)) return { allow: false, reason: 'this account cannot be impersonated' };
    return { allow: true };
  };
}
