/**
 * Webhook signatures: `Gatehouse-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256>` over
 * `<t>.<raw body>` with the endpoint's signing secret. The issuer signs every delivery with
 * {@link signWebhook}; a receiver checks it with {@link verifyWebhookSignature} (constant-time
 * comparison, timestamp within a tolerance window, so a captured delivery cannot be replayed later).
 *
 * This module is `@gatehouse/issuer/webhooks`: it imports only `node:crypto` and the defaults, never
 * oidc-provider or a database driver, so a receiver can use it without loading the issuer. For the
 * same reason its error class lives here rather than in `errors.ts` (which imports oidc-provider).
 *
 * @module
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { DEFAULTS } from '../config/defaults.js';

/**
 * The header carrying the signature (HTTP header names are case-insensitive: Node lower-cases it).
 *
 * @example
 * ```ts
 * const header = req.headers[WEBHOOK_SIGNATURE_HEADER.toLowerCase()];
 * ```
 */
export const WEBHOOK_SIGNATURE_HEADER = 'Gatehouse-Signature';

/** Why {@link verifyWebhookSignature} refused a delivery. */
export type WebhookSignatureReason =
  | 'missing_signature'
  | 'malformed_signature'
  | 'stale_timestamp'
  | 'bad_signature';

/**
 * A delivery whose signature does not check out. {@link WebhookSignatureError.reason} says why;
 * answer it with `400` (never process the body).
 *
 * @example
 * ```ts
 * try {
 *   verifyWebhookSignature({ secret, body, header });
 * } catch (err) {
 *   if (err instanceof WebhookSignatureError) res.writeHead(400).end(err.reason);
 * }
 * ```
 */
export class WebhookSignatureError extends Error {
  /** Stable reason: `missing_signature`, `malformed_signature`, `stale_timestamp` or `bad_signature`. */
  readonly reason: WebhookSignatureReason;
  constructor(reason: WebhookSignatureReason, message: string) {
    super(message);
    this.name = 'WebhookSignatureError';
    this.reason = reason;
  }
}

const mac = (secret: string, timestamp: number, body: string | Uint8Array): Buffer =>
  createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest();

/**
 * The `Gatehouse-Signature` value of `body` sent at `timestamp` (Unix seconds, default now).
 *
 * @example
 * ```ts
 * const header = signWebhook({ secret, body: '{"type":"token_exchange.failed"}' });
 * // 't=1764165600,v1=5f0c…'
 * ```
 */
export function signWebhook(input: {
  readonly secret: string;
  readonly body: string | Uint8Array;
  readonly timestamp?: number | undefined;
}): string {
  const timestamp = input.timestamp ?? Math.floor(Date.now() / 1000);
  return `t=${timestamp},v1=${mac(input.secret, timestamp, input.body).toString('hex')}`;
}

/**
 * Check a delivery: the `Gatehouse-Signature` header must hold a timestamp within `tolerance` seconds
 * of `now` and a `v1` HMAC-SHA256 of `<t>.<body>` under `secret`, compared in constant time. Pass the
 * body exactly as received (the raw bytes or string, not re-serialized JSON). Returns the parsed
 * event; throws a {@link WebhookSignatureError} when the delivery must be refused.
 *
 * @example
 * ```ts
 * import { verifyWebhookSignature } from '@gatehouse/issuer/webhooks';
 *
 * const event = verifyWebhookSignature({
 *   secret: process.env.GATEHOUSE_WEBHOOK_SECRET!,
 *   body: rawBody,
 *   header: req.headers['gatehouse-signature'],
 * });
 * console.log(event.type, event.id);
 * ```
 */
export function verifyWebhookSignature(input: {
  readonly secret: string;
  readonly body: string | Uint8Array;
  readonly header: string | readonly string[] | null | undefined;
  /** Seconds the timestamp may differ from `now` (default 300). */
  readonly tolerance?: number | undefined;
  /** The receiver's clock, Unix seconds (default now). */
  readonly now?: number | undefined;
}): WebhookEvent {
  const header = Array.isArray(input.header) ? input.header[0] : input.header;
  if (typeof header !== 'string' || header === '')
    throw new WebhookSignatureError('missing_signature', `no ${WEBHOOK_SIGNATURE_HEADER} header`);
  let timestamp: number | undefined;
  const signatures: Buffer[] = [];
  for (const part of header.split(',')) {
    const [key, value = ''] = part.trim().split('=', 2);
    if (key === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (key === 'v1' && /^[0-9a-f]{64}$/.test(value)) signatures.push(Buffer.from(value, 'hex'));
  }
  if (timestamp === undefined || signatures.length === 0)
    throw new WebhookSignatureError(
      'malformed_signature',
      `${WEBHOOK_SIGNATURE_HEADER} must be "t=<unix seconds>,v1=<64 hex digits>"`,
    );
  const now = input.now ?? Math.floor(Date.now() / 1000);
  const tolerance = input.tolerance ?? DEFAULTS.webhooks.tolerance;
  if (Math.abs(now - timestamp) > tolerance)
    throw new WebhookSignatureError(
      'stale_timestamp',
      `the signature's timestamp is more than ${tolerance} s away from now`,
    );
  const expected = mac(input.secret, timestamp, input.body);
  // Every candidate is compared (32 bytes each, constant time), so timing reveals nothing about which matched.
  let matched = false;
  for (const signature of signatures) matched = timingSafeEqual(signature, expected) || matched;
  if (!matched) throw new WebhookSignatureError('bad_signature', 'the signature does not match the body');
  return JSON.parse(typeof input.body === 'string' ? input.body : Buffer.from(input.body).toString('utf8'));
}

/**
 * The JSON body of every delivery: the audit event, as the Management API lists it. It never holds a
 * token, secret or PAT value.
 *
 * @example
 * ```ts
 * const event: WebhookEvent = verifyWebhookSignature({ secret, body, header });
 * if (event.type === 'token_exchange.failed') console.warn(event.reason);
 * ```
 */
export interface WebhookEvent {
  /** The audit event id (`evt_…`): the same in every retry, so receivers can drop duplicates. */
  readonly id: string;
  readonly type: string;
  /** ISO 8601. */
  readonly createdAt: string;
  readonly applicationId: string | null;
  readonly userId: string | null;
  readonly actorId: string | null;
  readonly reason: string | null;
  readonly details: Readonly<Record<string, unknown>>;
}
