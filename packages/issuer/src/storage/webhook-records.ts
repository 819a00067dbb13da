/**
 * Records of the webhook tables (migrations 0007 and 0010) and their row mappers: endpoints (with their
 * subscribed event types, encrypted signing secret and the previous one during a rotation's overlap,
 * and their health: failing since, disabled at) and deliveries (one per event and endpoint).
 * Times are epoch seconds, except the queue's own clock (`nextAttemptMs`, `claimedUntilMs`), which is
 * epoch milliseconds so retries can be shorter than a second apart.
 *
 * @module
 */
import { MANAGEMENT_EVENT_TYPES } from './audit-records.js';
import { num, numOrNull, parse, type Row, strOrNull } from './rows.js';

/**
 * The event types a webhook endpoint can subscribe to: every impersonation event of the audit trail,
 * and every change made through the Management API ({@link MANAGEMENT_EVENT_TYPES}).
 *
 * @example
 * ```ts
 * import { WEBHOOK_EVENT_TYPES } from '@gatehouse/issuer';
 * WEBHOOK_EVENT_TYPES.includes('token_exchange.failed'); // true
 * ```
 */
export const WEBHOOK_EVENT_TYPES = Object.freeze([
  'subject_token.created',
  'token_exchange.succeeded',
  'token_exchange.failed',
  'impersonation.ended',
  'personal_access_token.created',
  'personal_access_token.revoked',
  ...MANAGEMENT_EVENT_TYPES,
] as const);
/** One of {@link WEBHOOK_EVENT_TYPES}. */
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Whether `type` is one of {@link WEBHOOK_EVENT_TYPES}. */
export const isWebhookEventType = (type: string): type is WebhookEventType =>
  (WEBHOOK_EVENT_TYPES as readonly string[]).includes(type);

/**
 * A registered webhook endpoint. `secret` is the sealed signing secret (never shown after creation).
 *
 * @example
 * ```ts
 * const endpoint: WebhookEndpointRecord | undefined = await store.webhooks.getEndpoint('whk_…');
 * if (endpoint?.disabledAt !== null) console.log('disabled');
 * ```
 */
export interface WebhookEndpointRecord {
  readonly id: string;
  readonly url: string;
  readonly description: string;
  readonly events: readonly WebhookEventType[];
  /** The signing secret as stored: sealed with the issuer's webhook key (`webhooks/secret-box.ts`). */
  readonly secret: string;
  /** The secret a rotation replaced, sealed; it signs too until {@link previousSecretExpiresAt}. */
  readonly previousSecret: string | null;
  readonly previousSecretExpiresAt: number | null;
  /** Since when every attempt has failed (the first failure after the last success), if it is failing. */
  readonly failingSince: number | null;
  /** When it was disabled for failing too long (no deliveries are queued or sent while it is). */
  readonly disabledAt: number | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** What creating an endpoint stores. */
export interface NewWebhookEndpoint {
  readonly id: string;
  readonly url: string;
  readonly description: string;
  readonly events: readonly WebhookEventType[];
  readonly secret: string;
}

/** Where a delivery stands: waiting (first attempt or a retry), delivered, or given up. */
export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One event queued for one endpoint, and how its delivery went. */
export interface WebhookDeliveryRecord {
  readonly eventId: string;
  readonly endpointId: string;
  readonly eventType: WebhookEventType;
  /** The JSON body sent (the event; never a token, secret or PAT value). */
  readonly payload: string;
  readonly status: WebhookDeliveryStatus;
  /** Attempts started so far. */
  readonly attempts: number;
  /** When the next attempt is due (epoch milliseconds). */
  readonly nextAttemptMs: number;
  /** Until when an issuer process holds the delivery (epoch milliseconds; 0 when none does). */
  readonly claimedUntilMs: number;
  /** HTTP status of the last answer, if the receiver answered. */
  readonly lastStatus: number | null;
  /** Why the last attempt failed, generically (`http 500`, `timeout`, `connection failed`, `tls` …). */
  readonly lastError: string | null;
  readonly createdAt: number;
  readonly lastAttemptAt: number | null;
  readonly deliveredAt: number | null;
}

/**
 * The row of an endpoint as its record.
 *
 * @example
 * ```ts
 * toWebhookEndpoint(row).events; // ['token_exchange.failed']
 * ```
 */
export function toWebhookEndpoint(row: Row): WebhookEndpointRecord {
  return {
    id: String(row.id),
    url: String(row.url),
    description: String(row.description),
    events: parse<WebhookEventType[]>(row.events),
    secret: String(row.secret),
    previousSecret: strOrNull(row.previous_secret),
    previousSecretExpiresAt: numOrNull(row.previous_secret_expires_at),
    failingSince: numOrNull(row.failing_since),
    disabledAt: numOrNull(row.disabled_at),
    createdAt: num(row.created_at),
    updatedAt: num(row.updated_at),
  };
}

/**
 * The row of a delivery as its record.
 *
 * @example
 * ```ts
 * toWebhookDelivery(row).status; // 'pending'
 * ```
 */
export function toWebhookDelivery(row: Row): WebhookDeliveryRecord {
  return {
    eventId: String(row.event_id),
    endpointId: String(row.endpoint_id),
    eventType: String(row.event_type) as WebhookEventType,
    payload: String(row.payload),
    status: String(row.status) as WebhookDeliveryStatus,
    attempts: num(row.attempts),
    nextAttemptMs: num(row.next_attempt_ms),
    claimedUntilMs: num(row.claimed_until_ms),
    lastStatus: numOrNull(row.last_status),
    lastError: strOrNull(row.last_error),
    createdAt: num(row.created_at),
    lastAttemptAt: numOrNull(row.last_attempt_at),
    deliveredAt: numOrNull(row.delivered_at),
  };
}
