/**
 * The subject of a token exchange: a single-use subject token (`urn:ietf:params:oauth:token-type:access_token`)
 * or a reusable personal access token (`urn:gatehouse:params:oauth:token-type:personal_access_token`).
 *
 * A subject token is consumed by one conditional update before anything is minted, so of 20
 * concurrent redemptions exactly one wins (catalogue B2), and a failure after that point still burns
 * it. Values are looked up by SHA-256 digest and compared with `timingSafeEqual`.
 *
 * @module
 */
import { TokenExchangeError } from '../errors.js';
import { hashSecret, verifySecret } from '../internal/secrets.js';
import type { PersonalAccessTokenRecord, Store, SubjectTokenRecord } from '../storage/store.js';

/** Prefix of subject-token values. */
export const SUBJECT_TOKEN_PREFIX = 'sub_';
/** Prefix of personal-access-token values. */
export const PERSONAL_ACCESS_TOKEN_PREFIX = 'gpat_';

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** Callbacks of a lookup. */
export interface LookupHooks {
  /** A value matched nothing (feeds the failure limiter). */
  readonly onUnknown: () => Promise<void>;
  /** A value matched a record, usable or not (for the audit trail). */
  readonly onFound: (record: { readonly id: string; readonly userId: string }) => void;
}

/**
 * Consume a subject token. Unknown, expired and already-used tokens are refused with
 * `invalid_request` and a description saying which.
 */
export async function redeemSubjectToken(
  store: Store,
  value: string,
  now: number,
  hooks: LookupHooks,
): Promise<SubjectTokenRecord> {
  if (value.startsWith(PERSONAL_ACCESS_TOKEN_PREFIX)) {
    throw new TokenExchangeError(
      'subject_token_wrong_type',
      'this is a personal access token: send it with subject_token_type=urn:gatehouse:params:oauth:token-type:personal_access_token',
    );
  }
  if (JWT_SHAPE.test(value)) {
    throw new TokenExchangeError(
      'subject_token_wrong_type',
      'the subject token must be an opaque subject token from POST /api/subject-tokens, not a JWT',
    );
  }
  const digest = hashSecret(value);
  const consumed = await store.subjectTokens.consume(digest, now);
  if (consumed !== undefined && verifySecret(value, consumed.tokenHash)) {
    hooks.onFound(consumed);
    return consumed;
  }
  const known = await store.subjectTokens.findByHash(digest);
  if (known === undefined || !verifySecret(value, known.tokenHash)) {
    await hooks.onUnknown();
    throw new TokenExchangeError('subject_token_unknown', 'the subject token is unknown');
  }
  hooks.onFound(known);
  if (known.consumedAt !== null)
    throw new TokenExchangeError('subject_token_consumed', 'the subject token has already been used');
  throw new TokenExchangeError('subject_token_expired', 'the subject token has expired');
}

/** Look up a personal access token; unknown, revoked and expired ones are refused. Records the use. */
export async function usePersonalAccessToken(
  store: Store,
  value: string,
  now: number,
  hooks: LookupHooks,
): Promise<PersonalAccessTokenRecord> {
  const pat = await store.personalAccessTokens.findByHash(hashSecret(value));
  if (pat === undefined || !verifySecret(value, pat.tokenHash)) {
    await hooks.onUnknown();
    throw new TokenExchangeError(
      'personal_access_token_unknown',
      'the personal access token is unknown or has been revoked',
    );
  }
  hooks.onFound(pat);
  if (pat.expiresAt !== null && pat.expiresAt <= now)
    throw new TokenExchangeError('personal_access_token_expired', 'the personal access token has expired');
  await store.personalAccessTokens.touch(pat.id, now);
  return pat;
}
