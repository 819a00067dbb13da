/**
 * The sign-in check as a span of its own (`gatehouse.sign_in.authenticate`, a child of
 * `POST /interaction/{uid}/login`): the lock-out and rate-limit checks, the user's lookup and the
 * password hash, with how it ended (`gatehouse.sign_in.outcome`). Never the identifier, the password
 * or the user's id.
 *
 * @module
 */
import { TRACING_NAMES } from './names.js';
import { inChildSpan } from './tracer.js';

/**
 * Run the sign-in check `check` in its span.
 *
 * @example
 * ```ts
 * const outcome = await traceSignIn(() => protection.signIn.authenticate(attempt));
 * ```
 */
export function traceSignIn<T extends { readonly kind: string }>(check: () => Promise<T>): Promise<T> {
  return inChildSpan(TRACING_NAMES.spans.signIn, {}, async (span) => {
    const outcome = await check();
    span?.setAttribute(TRACING_NAMES.attributes.signInOutcome, outcome.kind);
    return outcome;
  });
}
