/**
 * The webhook endpoints table and its delivery queue. Part of the `Store` interface (`../store.ts`); see
 * there for the rules every driver follows.
 *
 * @module
 */
import type { NewAuditEvent } from '../audit-records.js';
import type { Page, PageRequest } from '../records.js';
import type {
  NewWebhookEndpoint,
  WebhookDeliveryRecord,
  WebhookDeliveryStatus,
  WebhookEndpointRecord,
} from '../webhook-records.js';

/**
 * How one delivery attempt ended: `delivered`, `pending` again (retried at `retryAtMs`) or `failed`
 * for good; the receiver's HTTP status if it answered, and why it failed (never a secret).
 */
export interface WebhookOutcome {
  readonly status: WebhookDeliveryStatus;
  readonly httpStatus: number | null;
  readonly error: string | null;
  /** When to try again (epoch milliseconds), for `pending`. */
  readonly retryAtMs?: number | undefined;
  /** Attempts to record instead of the claimed count (an attempt cut short by a shutdown does not count). */
  readonly attempts?: number | undefined;
}

/**
 * Webhook endpoints and their delivery queue. Deliveries are queued by {@link AuditEventStore.record}
 * and the store methods that record an event with a change, in the same statement or transaction, for
 * the subscribed endpoints that are not disabled.
 *
 * @example
 * ```ts
 * for (const delivery of await store.webhooks.claimDue(Date.now(), Date.now() + 30_000, 10, 4)) {
 *   await store.webhooks.settle(delivery, { status: 'delivered', httpStatus: 204, error: null }, now);
 * }
 * ```
 */
export interface WebhookStore {
  /** Store the endpoint and its subscriptions (one per event type) in one transaction. */
  createEndpoint(endpoint: NewWebhookEndpoint, now: number): Promise<WebhookEndpointRecord>;
  getEndpoint(id: string): Promise<WebhookEndpointRecord | undefined>;
  /** A page of endpoints, oldest first. */
  listEndpoints(page: PageRequest): Promise<Page<WebhookEndpointRecord>>;
  /** Delete the endpoint with its subscriptions and deliveries; resolves to whether it existed. */
  deleteEndpoint(id: string): Promise<boolean>;
  /**
   * Make `sealed` the endpoint's secret; the one it replaces keeps signing until `previousExpiresAt`
   * (a secret replaced earlier stops at once). Resolves to the endpoint, or `undefined` if there is none.
   */
  rotateSecret(
    id: string,
    sealed: string,
    previousExpiresAt: number,
    now: number,
  ): Promise<WebhookEndpointRecord | undefined>;
  /** Note a failed attempt: the endpoint is failing since `now` unless it already was; resolves to since when. */
  noteFailure(id: string, now: number): Promise<number | undefined>;
  /** Note a successful delivery: the endpoint is no longer failing. */
  noteSuccess(id: string): Promise<void>;
  /**
   * Disable the endpoint if it is enabled and has been failing since `failingBefore` or earlier, and
   * record `event` in the same statement or transaction; its pending deliveries no one holds are given
   * up. Resolves to the disabled endpoint, or `undefined` when nothing changed.
   */
  disableEndpoint(
    id: string,
    failingBefore: number,
    event: NewAuditEvent,
    now: number,
  ): Promise<WebhookEndpointRecord | undefined>;
  /** Enable a disabled endpoint again (no longer failing). Resolves to it, or `undefined` if there is none. */
  enableEndpoint(id: string, now: number): Promise<WebhookEndpointRecord | undefined>;
  /** A page of an endpoint's deliveries, newest first. */
  listDeliveries(endpointId: string, page: PageRequest): Promise<Page<WebhookDeliveryRecord>>;
  /**
   * Claim up to `limit` pending deliveries due at `nowMs` that no process holds, of enabled endpoints,
   * atomically, until `claimUntilMs`, counting one attempt each: a delivery is claimed by exactly one
   * caller, on every process of the database, and no endpoint ends up with more than `perEndpoint`
   * deliveries held at once (those of every process counted).
   */
  claimDue(
    nowMs: number,
    claimUntilMs: number,
    limit: number,
    perEndpoint: number,
  ): Promise<WebhookDeliveryRecord[]>;
  /**
   * Record the outcome of a claimed delivery and release it; resolves to `false` (nothing written)
   * when the claim expired and the row is no longer this claim's. A retry (`pending`) of a delivery
   * whose endpoint was disabled meanwhile is recorded as `failed`.
   */
  settle(delivery: WebhookDeliveryRecord, outcome: WebhookOutcome, now: number): Promise<boolean>;
  /** Delete delivered and failed deliveries created before `before`. Resolves to how many were deleted. */
  purgeSettled(before: number): Promise<number>;
}
