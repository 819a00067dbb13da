/**
 * The token tables of token exchange: subject tokens, personal access tokens and the access tokens of
 * impersonation. Part of the `Store` interface (`../store.ts`); see there for the rules every driver
 * follows.
 *
 * @module
 */
import type { NewAuditEvent } from '../audit-records.js';
import type {
  EndedImpersonations,
  ImpersonationSelector,
  ImpersonationTokenRecord,
  NewImpersonationToken,
  NewPersonalAccessToken,
  NewSubjectToken,
  PersonalAccessTokenRecord,
  SubjectTokenRecord,
} from '../records.js';

/**
 * Subject tokens for token exchange.
 *
 * @example
 * ```ts
 * const mine = await store.subjectTokens.consume(hashSecret(value), now, successEvent);
 * ```
 */
export interface SubjectTokenStore {
  create(token: NewSubjectToken, now: number): Promise<SubjectTokenRecord>;
  /**
   * Consume the token with this digest, atomically: one conditional update (`… WHERE consumed_at IS
   * NULL AND expires_at > now`). Resolves to the record for exactly one caller, and to `undefined`
   * when the token is unknown, expired or already consumed. `event`, when given, is recorded in the
   * same statement (or transaction) if and only if this call consumed the token, and so is
   * `issued`, the access token it was exchanged for (see {@link ImpersonationTokenStore}).
   */
  consume(
    tokenHash: string,
    now: number,
    event?: NewAuditEvent,
    issued?: NewImpersonationToken,
  ): Promise<SubjectTokenRecord | undefined>;
  /** The token with this digest, consumed or expired included (to explain a refusal). */
  findByHash(tokenHash: string): Promise<SubjectTokenRecord | undefined>;
  /** The token with this id, consumed or expired included. */
  get(id: string): Promise<SubjectTokenRecord | undefined>;
  /** Delete tokens that expired before `before`. Resolves to how many were deleted. */
  purgeExpired(before: number): Promise<number>;
}

/**
 * Personal access tokens.
 *
 * @example
 * ```ts
 * const pat = await store.personalAccessTokens.findByHash(hashSecret(value));
 * ```
 */
export interface PersonalAccessTokenStore {
  /** Throws `StoreConflictError` (`personal_access_token.name`) when the user already has a token with that name. */
  create(token: NewPersonalAccessToken, now: number): Promise<PersonalAccessTokenRecord>;
  /** A user's tokens, oldest first. */
  listFor(userId: string): Promise<readonly PersonalAccessTokenRecord[]>;
  findByHash(tokenHash: string): Promise<PersonalAccessTokenRecord | undefined>;
  /** Revoke (delete) one of a user's tokens; resolves to whether it existed. */
  delete(userId: string, id: string): Promise<boolean>;
  /**
   * Record a use; resolves to whether the token still exists. `event`, when given, is recorded in the
   * same statement (or transaction) if it does.
   */
  touch(id: string, now: number, event?: NewAuditEvent): Promise<boolean>;
}

/**
 * The access tokens subject tokens were exchanged for (impersonations), by digest; each is
 * recorded by `subjectTokens.consume`, together with the consumption.
 *
 * @example
 * ```ts
 * const live = await store.impersonationTokens.findActive(hashSecret(jwt), now);
 * ```
 */
export interface ImpersonationTokenStore {
  /** The token with this digest unless ended or expired at `now`. */
  findActive(tokenHash: string, now: number): Promise<ImpersonationTokenRecord | undefined>;
  /**
   * End the selected impersonations, in one transaction: their unexpired tokens are ended and their
   * unredeemed subject tokens consumed. `event` (given what changed) is recorded in the same
   * transaction; `undefined` records none.
   */
  end(
    selector: ImpersonationSelector,
    now: number,
    event: (ended: EndedImpersonations) => NewAuditEvent | undefined,
  ): Promise<EndedImpersonations>;
  /**
   * End the live token with this digest when `applicationId` holds it (RFC 7009 revocation by its own
   * client), recording `event` in the same statement (or transaction); resolves to whether it did.
   */
  revoke(tokenHash: string, applicationId: string, now: number, event: NewAuditEvent): Promise<boolean>;
  /** Delete tokens that expired before `before`. Resolves to how many were deleted. */
  purgeExpired(before: number): Promise<number>;
}
