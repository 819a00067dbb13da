/**
 * The one read of a token request, across tables. Part of the `Store` interface (`../store.ts`); see there
 * for the rules every driver follows.
 *
 * @module
 */
import type {
  ApplicationRecord,
  PersonalAccessTokenRecord,
  ResourceRecord,
  SubjectTokenRecord,
  UserRecord,
} from '../records.js';
import type { FailureWindow } from './failure-counters.js';

/**
 * What a token request looks up, in one read. Parts left unset are not looked up (and come back
 * `undefined`). Values are compared exactly (digests, ids, the indicator as sent).
 *
 * @example
 * ```ts
 * const query: TokenRequestQuery = {
 *   now,
 *   applicationId: 'te-web',
 *   indicator: 'https://orders.example.com',
 *   scopesOf: 'user',
 *   subjectTokenHash: hashSecret(subjectToken),
 * };
 * ```
 */
export interface TokenRequestQuery {
  /** Epoch seconds: the failure window must still be open then. */
  readonly now: number;
  /** The client: its application. */
  readonly applicationId?: string | undefined;
  /** A resource indicator: the resource, and the scopes of it that the roles of `scopesOf` grant. */
  readonly indicator?: string | undefined;
  /**
   * A resource by id, when `indicator` is not given: only the scopes of it that the roles of
   * `scopesOf` grant (the resource itself is not read; its caller has it).
   */
  readonly resourceId?: string | undefined;
  /**
   * Whose roles grant the scopes: the application (client credentials) or the user (the owner of the
   * subject token or personal access token, else `userId`). Unset: no scopes are read.
   */
  readonly scopesOf?: 'application' | 'user' | undefined;
  /** A failure-counter key: its window, if open at `now`. */
  readonly failureKey?: string | undefined;
  /** A subject-token digest: the token (consumed or expired included) and its user. */
  readonly subjectTokenHash?: string | undefined;
  /** A personal-access-token digest: the token and its user. */
  readonly personalAccessTokenHash?: string | undefined;
  /** A user, when no token names one. */
  readonly userId?: string | undefined;
}

/**
 * What {@link TokenRequestStore.read} found; `undefined` where nothing matched or nothing was asked.
 *
 * @example
 * ```ts
 * const { resource, grantedScopes } = await store.tokenRequests.read(query);
 * if (resource === undefined) throw new errors.InvalidTarget();
 * ```
 */
export interface TokenRequestRecords {
  readonly application: ApplicationRecord | undefined;
  readonly resource: ResourceRecord | undefined;
  /** Names of the resource's scopes that the roles of `scopesOf` grant, in code-point order. */
  readonly grantedScopes: readonly string[];
  readonly failures: FailureWindow | undefined;
  readonly subjectToken: SubjectTokenRecord | undefined;
  readonly personalAccessToken: PersonalAccessTokenRecord | undefined;
  /** The owner of the token found, else the user `userId`. */
  readonly user: UserRecord | undefined;
}

/**
 * Everything a token request reads, in one statement (one round trip): the client, the resource and
 * the role scopes it grants, the failure window, the subject token or personal access token and its
 * user. Writes stay with their own stores (`subjectTokens.consume`, `personalAccessTokens.touch`).
 *
 * @example
 * ```ts
 * const records = await store.tokenRequests.read({ now, applicationId: clientId, indicator, scopesOf: 'application' });
 * ```
 */
export interface TokenRequestStore {
  read(query: TokenRequestQuery): Promise<TokenRequestRecords>;
}
