/**
 * The subject of a token exchange: a single-use subject token (`urn:ietf:params:oauth:token-type:access_token`)
 * or a reusable personal access token (`urn:gatehouse:params:oauth:token-type:personal_access_token`).
 *
 * The record is found by SHA-256 digest (in the request's read-ahead) and its value compared with
 * `timingSafeEqual`; unknown, expired, used and revoked ones are refused here, before anything else
 * about the exchange is decided. What then comes back is a {@link Subject}: the grant checks the rest,
 * mints, and calls `use` — for a subject token one conditional update that consumes it (and records
 * the success event in the same statement), so of 20 concurrent redemptions exactly one wins
 * (catalogue B2); the others are refused as if they had come after it. A refusal after that point
 * (`spend`) still burns a subject token, and still records the use of a PAT — together with the
 * failure event, in the same statement, so a crash leaves either both or neither.
 *
 * @module
 */
import { TokenExchangeError } from '../errors.js';
import { verifySecret } from '../internal/secrets.js';
import type {
  NewAuditEvent,
  NewImpersonationToken,
  PersonalAccessTokenRecord,
  Store,
  SubjectTokenRecord,
} from '../storage/store.js';
import { looksLikeJwt } from './token-types.js';

/**
 * Prefix of subject-token values.
 *
 * @example
 * ```ts
 * value.startsWith(SUBJECT_TOKEN_PREFIX); // a subject token from POST /api/subject-tokens
 * ```
 */
export const SUBJECT_TOKEN_PREFIX = 'sub_';
/**
 * Prefix of personal-access-token values.
 *
 * @example
 * ```ts
 * value.startsWith(PERSONAL_ACCESS_TOKEN_PREFIX); // a PAT
 * ```
 */
export const PERSONAL_ACCESS_TOKEN_PREFIX = 'gpat_';

/**
 * Callbacks of a lookup.
 *
 * @example
 * ```ts
 * const hooks: LookupHooks = { onUnknown: () => limiter.fail(key, now), onFound: (r) => (attempt.userId = r.userId) };
 * ```
 */
export interface LookupHooks {
  /** A value matched nothing (feeds the failure limiter). */
  readonly onUnknown: () => Promise<void>;
  /** A value matched a record, usable or not (for the audit trail; a subject token has its `context`). */
  readonly onFound: (record: {
    readonly id: string;
    readonly userId: string;
    readonly context?: Readonly<Record<string, unknown>>;
  }) => void;
}

/**
 * A subject token or PAT that was usable when it was read.
 *
 * @example
 * ```ts
 * try { minted = await mint(); } catch (err) { await subject.spend(failureEvent); throw err; }
 * await subject.use(successEvent);
 * ```
 */
export interface Subject {
  readonly userId: string;
  /** The subject token, for a subject token. */
  readonly subjectToken?: SubjectTokenRecord;
  /** The personal access token, for a PAT. */
  readonly personalAccessToken?: PersonalAccessTokenRecord;
  /**
   * Consume the subject token, or record the use of the PAT, together with the success `event` (and,
   * for a subject token, the `issued` access token).
   * Throws the refusal the exchange gets when another redemption consumed the token first (or the
   * PAT was revoked meanwhile); the event is then not recorded.
   */
  use(event: NewAuditEvent, issued?: NewImpersonationToken): Promise<void>;
  /**
   * After a refusal of the exchange: burn the subject token (or record the PAT's use) all the same,
   * together with the failure `event`. Resolves to whether the event was recorded; throws, like `use`,
   * when another redemption consumed the subject token first.
   */
  spend(event: NewAuditEvent): Promise<boolean>;
}

const unknownSubjectToken = () =>
  new TokenExchangeError('subject_token_unknown', 'the subject token is unknown');
const unknownPat = () =>
  new TokenExchangeError(
    'personal_access_token_unknown',
    'the personal access token is unknown or has been revoked',
  );

const expired = () => new TokenExchangeError('subject_token_expired', 'the subject token has expired');

/** Why a known subject token cannot be redeemed at `now`, if it cannot. */
function refusal(token: SubjectTokenRecord, now: number): TokenExchangeError | undefined {
  if (token.consumedAt !== null)
    return new TokenExchangeError('subject_token_consumed', 'the subject token has already been used');
  if (token.expiresAt <= now) return expired();
  return undefined;
}

/**
 * The subject token `value`, found (by digest) as `found`. Unknown, expired and already-used tokens,
 * and values of the wrong kind, are refused with `invalid_request` and a description saying which.
 *
 * @example
 * ```ts
 * const subject = await redeemSubjectToken(store, value, records.subjectToken, now, hooks);
 * await subject.use(successEvent); // throws 'already been used' for all but one concurrent caller
 * ```
 */
export async function redeemSubjectToken(
  store: Store,
  value: string,
  found: SubjectTokenRecord | undefined,
  now: number,
  hooks: LookupHooks,
): Promise<Subject> {
  if (value.startsWith(PERSONAL_ACCESS_TOKEN_PREFIX)) {
    throw new TokenExchangeError(
      'subject_token_wrong_type',
      'this is a personal access token: send it with subject_token_type=urn:gatehouse:params:oauth:token-type:personal_access_token',
    );
  }
  if (looksLikeJwt(value)) {
    throw new TokenExchangeError(
      'subject_token_wrong_type',
      'the subject token must be an opaque subject token from POST /api/subject-tokens, not a JWT',
    );
  }
  if (found === undefined || !verifySecret(value, found.tokenHash)) {
    await hooks.onUnknown();
    throw unknownSubjectToken();
  }
  hooks.onFound(found);
  const refused = refusal(found, now);
  if (refused !== undefined) throw refused;
  /** Consume; when another redemption won, throw what this one gets, as a redemption after it would. */
  const consume = async (event: NewAuditEvent, issued?: NewImpersonationToken): Promise<true> => {
    if ((await store.subjectTokens.consume(found.tokenHash, now, event, issued)) !== undefined) return true;
    const known = await store.subjectTokens.findByHash(found.tokenHash);
    if (known === undefined) throw unknownSubjectToken();
    throw refusal(known, now) ?? expired();
  };
  return {
    userId: found.userId,
    subjectToken: found,
    use: async (event, issued) => {
      await consume(event, issued);
    },
    spend: (event) => consume(event),
  };
}

/**
 * The personal access token `value`, found (by digest) as `found`; unknown, revoked and expired ones
 * are refused.
 *
 * @example
 * ```ts
 * const subject = await usePersonalAccessToken(store, value, records.personalAccessToken, now, hooks);
 * ```
 */
export async function usePersonalAccessToken(
  store: Store,
  value: string,
  found: PersonalAccessTokenRecord | undefined,
  now: number,
  hooks: LookupHooks,
): Promise<Subject> {
  if (found === undefined || !verifySecret(value, found.tokenHash)) {
    await hooks.onUnknown();
    throw unknownPat();
  }
  hooks.onFound(found);
  if (found.expiresAt !== null && found.expiresAt <= now)
    throw new TokenExchangeError('personal_access_token_expired', 'the personal access token has expired');
  return {
    userId: found.userId,
    personalAccessToken: found,
    use: async (event) => {
      if (!(await store.personalAccessTokens.touch(found.id, now, event))) throw unknownPat();
    },
    spend: (event) => store.personalAccessTokens.touch(found.id, now, event),
  };
}
