/**
 * What the audit event of a refused token exchange says: who tried (as far as known when it was
 * refused), and why, as one stable reason (the `TokenExchangeError` reason, the custom claims' refusal,
 * or the OAuth error code) with oidc-provider's description.
 *
 * @module
 */
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { TokenExchangeFailureReason } from '../errors.js';

/**
 * oidc-provider's description when a client may not use a grant; answered as `unauthorized_client`.
 *
 * @example
 * ```ts
 * if (body.error === 'invalid_request' && body.error_description === GRANT_NOT_ALLOWED) body.error = 'unauthorized_client';
 * ```
 */
export const GRANT_NOT_ALLOWED = 'requested grant type is not allowed for this client';

/**
 * What is known about one exchange, for its audit event; filled in as the exchange goes.
 *
 * @example
 * ```ts
 * const attempt: ExchangeAttempt = { userId: null, actorId: null, details: {} };
 * ```
 */
export interface ExchangeAttempt {
  userId: string | null;
  actorId: string | null;
  details: Record<string, unknown>;
}

function reasonOf(err: unknown): string {
  const reason = (err as { reason?: TokenExchangeFailureReason }).reason;
  if (typeof reason === 'string') return reason;
  const failure = (err as { failure?: string }).failure;
  if (typeof failure === 'string') return 'custom_claims_failed';
  const code = (err as { error?: unknown }).error;
  if (code === 'access_denied') return 'custom_claims_denied';
  if (code === 'invalid_request' && describe(err) === GRANT_NOT_ALLOWED) return 'unauthorized_client';
  return typeof code === 'string' ? code : 'server_error';
}

function describe(err: unknown): string | undefined {
  const description = (err as { error_description?: unknown }).error_description;
  return typeof description === 'string' ? description.slice(0, 256) : undefined;
}

/**
 * The `token_exchange.failed` event of an attempt refused with `err`.
 *
 * @example
 * ```ts
 * await context.audit.record(failureEvent(ctx, attempt, err));
 * ```
 */
export function failureEvent(ctx: KoaContextWithOIDC, attempt: ExchangeAttempt, err: unknown) {
  return {
    type: 'token_exchange.failed',
    applicationId: ctx.oidc.client?.clientId ?? null,
    userId: attempt.userId,
    actorId: attempt.actorId,
    reason: reasonOf(err),
    details: { ...attempt.details, description: describe(err) },
  } as const;
}
