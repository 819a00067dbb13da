/**
 * Step-up authentication (RFC 9470): a route's requirements on the user's sign-in behind a token —
 * an accepted authentication context class (`acr`) and a recent enough sign-in (`auth_time`) — and
 * their check, which answers 401 `insufficient_user_authentication` with the requirements in the
 * challenge so the client can send the user back to the authorization server with `acr_values` and
 * `max_age`.
 *
 * @module
 */
import { type ErrorContext, InsufficientUserAuthenticationError, InvalidTokenError } from './errors.js';
import { rejectUnknownKeys } from './internal/known-keys.js';
import type { AuthInfo } from './types.js';

/**
 * A route's sign-in requirements (RFC 9470 §3).
 *
 * @example
 * ```ts
 * const stepUp: StepUpOptions = { acrValues: ['urn:gatehouse:acr:mfa'], maxAge: 300 };
 * ```
 */
export interface StepUpOptions {
  /**
   * Accepted `acr` values (authentication context classes), most preferred first, as a list or a
   * space-separated string. A token whose `acr` is not one of them → 401 `insufficient_user_authentication`.
   */
  acrValues?: string | readonly string[];
  /**
   * Oldest accepted sign-in, in seconds since the token's `auth_time` (within the clock tolerance). A
   * token without `auth_time`, or with an older one → 401 `insufficient_user_authentication`.
   */
  maxAge?: number;
}

/**
 * Validated {@link StepUpOptions}: frozen, `acrValues` as a list.
 *
 * @example
 * ```ts
 * const requirement: StepUpRequirement = resolveStepUpRequirement({ maxAge: 300 });
 * ```
 */
export interface StepUpRequirement {
  readonly acrValues: readonly string[] | undefined;
  readonly maxAge: number | undefined;
}

/**
 * Every key of {@link StepUpOptions}, for the option lists of the verifier and the adapters.
 *
 * @example
 * ```ts
 * rejectUnknownOptions(options, [...STEP_UP_OPTIONS, 'mode']);
 * ```
 */
export const STEP_UP_OPTIONS: readonly string[] = Object.freeze(
  Object.keys({ acrValues: 1, maxAge: 1 } satisfies Record<keyof StepUpOptions, 1>),
);

// An acr value goes into a challenge's quoted-string: printable ASCII without space, `"` or `\`.
const ACR_VALUE = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/**
 * Validate step-up options (the `acrValues` and `maxAge` members of `options`; other members are
 * ignored here). Returns `undefined` when neither is set. Throws a `TypeError` naming the option.
 *
 * @example
 * ```ts
 * resolveStepUp({ acrValues: 'urn:gatehouse:acr:mfa', maxAge: 300 });
 * // { acrValues: ['urn:gatehouse:acr:mfa'], maxAge: 300 }
 * ```
 */
export function resolveStepUp(options: StepUpOptions): StepUpRequirement | undefined {
  const { acrValues, maxAge } = options;
  if (acrValues === undefined && maxAge === undefined) return undefined;
  let list: readonly string[] | undefined;
  if (acrValues !== undefined) {
    const raw: readonly unknown[] | undefined =
      typeof acrValues === 'string'
        ? acrValues.split(' ').filter((v) => v !== '')
        : Array.isArray(acrValues)
          ? acrValues
          : undefined;
    if (
      raw === undefined ||
      raw.length === 0 ||
      !raw.every((v) => typeof v === 'string' && ACR_VALUE.test(v))
    )
      throw new TypeError(
        '"acrValues" option must name at least one acr value (a list, or a space-separated string) of printable ASCII without quotes or backslashes',
      );
    list = Object.freeze([...(raw as string[])]);
  }
  if (maxAge !== undefined && (typeof maxAge !== 'number' || !Number.isInteger(maxAge) || maxAge < 0))
    throw new TypeError('"maxAge" option must be a whole number of seconds (0 or more)');
  return Object.freeze({ acrValues: list, maxAge });
}

/**
 * {@link resolveStepUp} for an options object of its own (a decorator's or guard's argument): unknown
 * keys are refused with a "did you mean", and at least one requirement must be given.
 *
 * @example
 * ```ts
 * resolveStepUpRequirement({ acrValues: ['urn:gatehouse:acr:mfa'] }); // { acrValues: [...], maxAge: undefined }
 * resolveStepUpRequirement({ maxAeg: 60 }); // TypeError: unknown option "maxAeg" (did you mean "maxAge"?)
 * ```
 */
export function resolveStepUpRequirement(options: StepUpOptions): StepUpRequirement {
  if (options === null || typeof options !== 'object')
    throw new TypeError('step-up options must be an object with "acrValues" and/or "maxAge"');
  rejectUnknownKeys(options, STEP_UP_OPTIONS);
  const requirement = resolveStepUp(options);
  if (requirement === undefined) throw new TypeError('step-up options must set "acrValues" and/or "maxAge"');
  return requirement;
}

/**
 * Check a verified token against a step-up requirement. Throws
 * {@link InsufficientUserAuthenticationError} (401) when its `acr` is not accepted or its `auth_time`
 * is missing or too old, and {@link InvalidTokenError} (`claim`) when `acr` is not a string or
 * `auth_time` is not a NumericDate or lies in the future beyond the tolerance. A delegated token
 * (RFC 8693 `act`: someone acting for the subject, such as an impersonation) never meets a
 * requirement: the subject did not sign in for it, so an `acr` or `auth_time` it carries (an issuer
 * may copy the actor's) is not read.
 *
 * @param now - current time in seconds since the epoch.
 * @param tolerance - the verifier's clock tolerance, in seconds.
 * @example
 * ```ts
 * checkStepUp(auth, resolveStepUpRequirement({ maxAge: 300 }), Date.now() / 1000, 5, verifier.context);
 * ```
 */
export function checkStepUp(
  info: AuthInfo,
  requirement: StepUpRequirement,
  now: number,
  tolerance: number,
  context: ErrorContext,
): void {
  const { acr, auth_time: authTime } = info.claims;
  if (acr !== undefined && typeof acr !== 'string') throw new InvalidTokenError('claim', context, 'acr');
  if (authTime !== undefined) {
    if (typeof authTime !== 'number' || !Number.isFinite(authTime) || authTime > now + tolerance)
      throw new InvalidTokenError('claim', context, 'auth_time');
  }
  const { acrValues, maxAge } = requirement;
  if (info.actor !== undefined)
    throw new InsufficientUserAuthenticationError(
      acrValues !== undefined ? 'acr_not_accepted' : 'auth_time_too_old',
      requirement,
      context,
    );
  if (acrValues !== undefined && (acr === undefined || !acrValues.includes(acr)))
    throw new InsufficientUserAuthenticationError('acr_not_accepted', requirement, context);
  if (maxAge !== undefined && (authTime === undefined || now - tolerance - (authTime as number) > maxAge))
    throw new InsufficientUserAuthenticationError('auth_time_too_old', requirement, context);
}
