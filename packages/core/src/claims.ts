/**
 * Steps 3–5 of verification, and the profile checks after them, on a payload whose signature is
 * already verified:
 *
 * 3. `iss` equals a configured issuer exactly (a string; no normalization);
 * 4. `aud` (string or array of strings) contains a configured audience exactly; a refused `aud` is
 *    told to `onWarning` (audience-warning.ts);
 * 5. `exp` is required; `exp`, `nbf`, `iat` and `auth_time` are finite NumericDates; expiry,
 *    not-before and `maxTokenAge` are checked with the clock tolerance, and so is an `iat` (when
 *    `maxTokenAge` or `strict` checks it) or an `auth_time` in the future;
 *
 * then: with `strict`, `sub`, `client_id`, `iat` and `jti` are required (RFC 9068 §2.2); present
 * identity claims have the right types; `act` is a valid actor chain; `roles`, when present, is an
 * array of role names; `cnf`, when present, holds a binding this verifier can check (`jkt` and/or
 * `x5t#S256`: a token bound by any other method is refused, never accepted as a bearer token);
 * configured claim checks pass.
 *
 * @module
 */
import { parseActor } from './actor.js';
import type { AudienceWarnings } from './audience-warning.js';
import { type ErrorContext, InvalidTokenError, type InvalidTokenReason } from './errors.js';
import type { ResolvedOptions } from './options.js';
import { parseRoles } from './roles.js';
import { isThumbprint } from './thumbprint.js';
import type { AccessTokenClaims, Actor, Confirmation } from './types.js';

/** What the claim checks derive from a valid payload. */
export interface CheckedClaims {
  readonly issuer: string;
  readonly audience: readonly string[];
  readonly exp: number;
  readonly actor: Actor | undefined;
  /** The `roles` claim, validated; absent or `[]` when the token has none. */
  readonly roles?: readonly string[] | undefined;
  /** The `cnf` binding, when the token has one. */
  readonly confirmation?: Confirmation | undefined;
  /** Seconds since epoch after which this result must not be reused (exp, or iat + maxTokenAge, plus tolerance). */
  readonly validUntil: number;
}

const isNumericDate = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value);
const STRICT_STRINGS = ['sub', 'client_id', 'jti'] as const;
const IDENTITY_STRINGS = ['sub', 'client_id', 'jti', 'azp'] as const;

/** The `audience` failure of a token of `iss`, told to `warnings` first (rate-limited there). */
function refusedAudience(
  iss: string,
  aud: unknown,
  options: ResolvedOptions,
  context: ErrorContext,
  warnings: AudienceWarnings | undefined,
): InvalidTokenError {
  warnings?.report(iss, options.audiences, aud);
  return new InvalidTokenError('audience', context);
}

/**
 * Check the claims of a verified payload, in order. Throws {@link InvalidTokenError}.
 *
 * @param now - current time in seconds since the epoch.
 * @param warnings - told when the token is refused for its audience (`onWarning`); none when off.
 * @example
 * ```ts
 * const checked = checkClaims(jws.payload, issuer.options, Date.now() / 1000, context, audienceWarnings);
 * ```
 */
export function checkClaims(
  payload: Record<string, unknown>,
  options: ResolvedOptions,
  now: number,
  context: ErrorContext,
  warnings?: AudienceWarnings,
): CheckedClaims {
  const invalid = (reason: InvalidTokenReason, claim?: string) =>
    new InvalidTokenError(reason, context, claim);

  // 3. iss
  const { iss, aud, exp, nbf, iat } = payload;
  if (typeof iss !== 'string' || !options.issuers.includes(iss)) throw invalid('issuer');

  // 4. aud (a refused one is told to `warnings`, off the path of a valid token)
  let audience: readonly string[];
  if (typeof aud === 'string') audience = Object.freeze([aud]);
  else if (Array.isArray(aud) && aud.length > 0 && aud.every((a) => typeof a === 'string'))
    audience = Object.freeze(aud);
  else throw refusedAudience(iss, aud, options, context, warnings);
  if (!audience.some((a) => options.audiences.includes(a)))
    throw refusedAudience(iss, aud, options, context, warnings);

  // 5. exp / nbf / iat / maxTokenAge
  const tolerance = options.clockTolerance;
  if (!isNumericDate(exp)) throw invalid('claim', 'exp');
  if (nbf !== undefined && !isNumericDate(nbf)) throw invalid('claim', 'nbf');
  if (iat !== undefined && !isNumericDate(iat)) throw invalid('claim', 'iat');
  if (now - tolerance >= exp) throw invalid('expired');
  if (nbf !== undefined && nbf > now + tolerance) throw invalid('not_yet_valid');
  let validUntil = exp + tolerance;
  if (options.maxTokenAge !== undefined) {
    if (iat === undefined) throw invalid('claim', 'iat');
    if (now - iat - tolerance > options.maxTokenAge) throw invalid('too_old');
    validUntil = Math.min(validUntil, iat + options.maxTokenAge + tolerance);
  }
  // `auth_time` (OIDC Core §2) is a NumericDate like the others: when present, a finite number not in the future.
  const authTime = payload.auth_time;
  if (authTime !== undefined && (!isNumericDate(authTime) || authTime > now + tolerance))
    throw invalid('claim', 'auth_time');

  // Profile: RFC 9068 §2.2 required claims, and types of identity claims when present.
  if (options.strict) {
    for (const name of STRICT_STRINGS) {
      if (typeof payload[name] !== 'string' || (payload[name] as string).length === 0)
        throw invalid('claim', name);
    }
    if (iat === undefined) throw invalid('claim', 'iat');
  }
  // Wherever `iat` is checked (maxTokenAge, strict), a token issued in the future is refused, as jose
  // and express-oauth2-jwt-bearer do (RFC 9068 §4).
  if (iat !== undefined && (options.strict || options.maxTokenAge !== undefined) && iat > now + tolerance)
    throw invalid('not_yet_valid', 'iat');
  for (const name of IDENTITY_STRINGS) {
    if (payload[name] !== undefined && typeof payload[name] !== 'string') throw invalid('claim', name);
  }

  // RFC 8693 act
  const actor = parseActor(payload.act);
  if (actor === null) throw invalid('actor');

  // roles: an array of role names, or the token is invalid (catalogue A61)
  const roles = parseRoles(payload);
  if (roles === null) throw invalid('claim', 'roles');

  // RFC 7800 cnf
  const confirmation = parseConfirmation(payload.cnf);
  if (confirmation === null) throw invalid('claim', 'cnf');

  // Configured claim checks
  for (const [name, check] of options.claims) {
    const value = payload[name];
    let ok: boolean;
    if (typeof check === 'function') {
      try {
        ok = check(value, payload as AccessTokenClaims) === true;
      } catch {
        ok = false;
      }
    } else if ('equals' in check) {
      ok = value === check.equals;
    } else {
      ok =
        (typeof value === 'string' && value.split(' ').includes(check.includes)) ||
        (Array.isArray(value) && value.includes(check.includes));
    }
    if (!ok) throw invalid('claim', name);
  }

  return { issuer: iss, audience, exp, actor, roles, confirmation, validUntil };
}

/**
 * The `cnf` claim as a {@link Confirmation}: `undefined` when absent, `null` when it is not an object
 * holding well-formed `jkt` and/or `x5t#S256` thumbprints and nothing this verifier could not check.
 */
function parseConfirmation(cnf: unknown): Confirmation | undefined | null {
  if (cnf === undefined) return undefined;
  if (cnf === null || typeof cnf !== 'object' || Array.isArray(cnf)) return null;
  const { jkt, 'x5t#S256': x5t, ...other } = cnf as Record<string, unknown>;
  if (Object.keys(other).length > 0 || (jkt === undefined && x5t === undefined)) return null;
  if ((jkt !== undefined && !isThumbprint(jkt)) || (x5t !== undefined && !isThumbprint(x5t))) return null;
  return Object.freeze({
    ...(jkt === undefined ? {} : { jkt }),
    ...(x5t === undefined ? {} : { 'x5t#S256': x5t }),
  }) as Confirmation;
}

/**
 * The header `typ` check (RFC 9068 §4, RFC 8725 §3.11), run right after the signature: with `strict`,
 * only `at+jwt` (or `application/at+jwt`, any case); otherwise also no `typ` or `JWT`. Any other type of
 * JWT (`dpop+jwt`, `logout+jwt`, `secevent+jwt`, an ID token's `JWT` in strict mode) is refused.
 */
export function checkType(typ: string | undefined, strict: boolean): boolean {
  if (typ === undefined) return !strict;
  const t = typ.toLowerCase();
  const bare = t.startsWith('application/') ? t.slice('application/'.length) : t;
  return bare === 'at+jwt' || (!strict && bare === 'jwt');
}
