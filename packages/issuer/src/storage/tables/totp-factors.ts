/**
 * The TOTP factors table: each user's second factor. Part of the `Store` interface (`../store.ts`); see
 * there for the rules every driver follows.
 *
 * @module
 */

/**
 * A user's TOTP factor (RFC 6238). `secret` is the encrypted shared secret (never the clear one).
 *
 * @example
 * ```ts
 * const factor: TotpFactorRecord = { userId: 'usr_1', secret: 'v1.…', confirmed: true, lastStep: 59_000_000 };
 * ```
 */
export interface TotpFactorRecord {
  readonly userId: string;
  readonly secret: string;
  /** Whether a valid code has been entered since the secret was issued (enrolment done). */
  readonly confirmed: boolean;
  /** The last accepted time step (`floor(unix time / period)`); 0 before any. */
  readonly lastStep: number;
}

/** TOTP factors, one per user (step-up sign-in). */
export interface TotpFactorStore {
  get(userId: string): Promise<TotpFactorRecord | undefined>;
  /**
   * Store a new, unconfirmed secret for `userId` — unless a confirmed factor exists, which is never
   * replaced here. Resolves to the stored record (the confirmed one when there was one).
   */
  begin(userId: string, secret: string, now: number): Promise<TotpFactorRecord>;
  /**
   * Accept time step `step` for `userId`, atomically and once: confirms the factor and records the
   * step when it is later than the last accepted one. `false` when it is not (a replayed code).
   */
  accept(userId: string, step: number, now: number): Promise<boolean>;
}
