/**
 * The payloads table: oidc-provider's artifacts. Part of the `Store` interface (`../store.ts`); see there
 * for the rules every driver follows.
 *
 * @module
 */
import type { PayloadIndex, StoredPayload } from '../records.js';

/** oidc-provider's artifacts, keyed by model name and id. */
export interface PayloadStore {
  upsert(
    model: string,
    id: string,
    payload: Readonly<Record<string, unknown>>,
    expiresAt: number | null,
    index: PayloadIndex,
  ): Promise<void>;
  /** The payload, unless missing or expired at `now`. */
  find(model: string, id: string, now: number): Promise<StoredPayload | undefined>;
  findByUid(model: string, uid: string, now: number): Promise<StoredPayload | undefined>;
  findByUserCode(model: string, userCode: string, now: number): Promise<StoredPayload | undefined>;
  /**
   * Mark as consumed, atomically: resolves to `true` for exactly one caller, and to `false` when the
   * row is missing, expired or already consumed (`UPDATE … WHERE consumed_at IS NULL`).
   */
  consume(model: string, id: string, now: number): Promise<boolean>;
  destroy(model: string, id: string): Promise<void>;
  /** Delete every artifact issued under a grant (codes, tokens); the grant itself is destroyed separately. */
  revokeByGrantId(grantId: string): Promise<void>;
  /** Delete expired artifacts. Resolves to how many were deleted. */
  purgeExpired(now: number): Promise<number>;
}
