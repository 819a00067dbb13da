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

/**
 * Why {@link verifyWebhookSignature} refused a delivery. The first four are about the delivery; the
 * `invalid_*` ones about the receiver's own call (an empty secret, a tolerance or clock that is not a
 * finite, non-negative number), refused before the delivery is looked at, or about a correctly signed
 * body that is not a JSON event (`invalid_event`).
 *
 * @example
 * ```ts
 * const reason: WebhookSignatureReason = 'stale_timestamp';
 * ```
 */
export type WebhookSignatureReason =
  | 'missing_signature'
  | 'malformed_signature'
  | 'stale_timestamp'
  | 'bad_signature'
  | 'invalid_secret'
  | 'invalid_tolerance'
  | 'invalid_clock'
  | 'invalid_event';

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
  /** Stable reason: see {@link WebhookSignatureReason}. */
  readonly reason: WebhookSignatureReason;
  constructor(reason: WebhookSignatureReason, message: string) {
    super(message);
    this.name = 'WebhookSignatureError';
    this.reason = reason;
  }
}

const mac = (secret: string, timestamp: number, body: string | Uint8Array): Buffer =>
  createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest();

/** An empty secret is an HMAC key anyone can use: refused on both sides. */
const checkSecret = (secret: unknown): string => {
  if (typeof secret !== 'string' || secret === '')
    throw new WebhookSignatureError('invalid_secret', 'the webhook secret must be a non-empty string');
  return secret;
};

/**
 * The `Gatehouse-Signature` value of `body` sent at `timestamp` (Unix seconds, default now). With
 * several secrets (during a secret rotation's overlap) the header carries one `v1` per secret, and a
 * receiver holding any one of them accepts it.
 *
 * @example
 * ```ts
 * const header = signWebhook({ secret, body: '{"type":"token_exchange.failed"}' });
 * // 't=1764165600,v1=5f0c…'
 * signWebhook({ secret: [newSecret, oldSecret], body }); // 't=…,v1=…,v1=…'
 * ```
 */
export function signWebhook(input: {
  readonly secret: string | readonly string[];
  readonly body: string | Uint8Array;
  readonly timestamp?: number | undefined;
}): string {
  const secrets = typeof input.secret === 'string' ? [input.secret] : input.secret;
  if (secrets.length === 0) checkSecret(undefined);
  const timestamp = input.timestamp ?? Math.floor(Date.now() / 1000);
  const signatures = secrets.map(
    (secret) => `v1=${mac(checkSecret(secret), timestamp, input.body).toString('hex')}`,
  );
  return `t=${timestamp},${signatures.join(',')}`;
}

/** A finite, non-negative number, or the refusal `reason`. */
const checkNumber = (value: number, reason: WebhookSignatureReason, name: string): number => {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
    throw new WebhookSignatureError(reason, `${name} must be a finite number of seconds, not negative`);
  return value;
};

const NULLABLE_TEXT = ['applicationId', 'userId', 'actorId', 'reason'] as const;

/** The verified body as a {@link WebhookEvent}, or an `invalid_event` refusal. */
function parseEvent(body: string | Uint8Array): WebhookEvent {
  let event: unknown;
  try {
    const text = typeof body === 'string' ? body : new TextDecoder('utf-8', { fatal: true }).decode(body);
    event = JSON.parse(text);
  } catch {
    throw new WebhookSignatureError('invalid_event', 'the signed body is not JSON');
  }
  const fields = event as Record<string, unknown> | null;
  const valid =
    typeof fields === 'object' &&
    fields !== null &&
    !Array.isArray(fields) &&
    typeof fields.id === 'string' &&
    typeof fields.type === 'string' &&
    typeof fields.createdAt === 'string' &&
    typeof fields.details === 'object' &&
    fields.details !== null &&
    !Array.isArray(fields.details) &&
    NULLABLE_TEXT.every((name) => fields[name] === null || typeof fields[name] === 'string') &&
    (fields.traceId === undefined || fields.traceId === null || typeof fields.traceId === 'string');
  if (!valid)
    throw new WebhookSignatureError(
      'invalid_event',
      'the signed body is not a webhook event (id, type, createdAt, details …)',
    );
  // A delivery queued by an issuer older than the `traceId` field has none: read it as untraced.
  return { ...fields, traceId: fields.traceId ?? null } as WebhookEvent;
}

/**
 * Check a delivery: the `Gatehouse-Signature` header must hold a timestamp within `tolerance` seconds
 * of `now` and a `v1` HMAC-SHA256 of `<t>.<body>` under `secret` (any one `v1` of several), compared
 * in constant time, and the body must be a JSON event. Pass the body exactly as received (the raw bytes
 * or string, not re-serialized JSON). Returns the parsed event; throws a {@link WebhookSignatureError}
 * when the delivery must be refused. It fails closed on its own options too: an empty or missing
 * `secret` (`invalid_secret`), a `tolerance` or `now` that is not a finite, non-negative number
 * (`invalid_tolerance`, `invalid_clock`: `NaN` would otherwise turn the timestamp check off).
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
  const secret = checkSecret(input.secret);
  const tolerance = checkNumber(
    input.tolerance ?? DEFAULTS.webhooks.tolerance,
    'invalid_tolerance',
    'tolerance',
  );
  const now = checkNumber(input.now ?? Math.floor(Date.now() / 1000), 'invalid_clock', 'now');
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
  if (Math.abs(now - timestamp) > tolerance)
    throw new WebhookSignatureError(
      'stale_timestamp',
      `the signature's timestamp is more than ${tolerance} s away from now`,
    );
  const expected = mac(secret, timestamp, input.body);
  // Every candidate is compared (32 bytes each, constant time), so timing reveals nothing about which matched.
  let matched = false;
  for (const signature of signatures) matched = timingSafeEqual(signature, expected) || matched;
  if (!matched) throw new WebhookSignatureError('bad_signature', 'the signature does not match the body');
  return parseEvent(input.body);
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
  /**
   * The W3C trace id (32 lower-case hex digits) of the request that recorded the event, when that
   * request was traced (OpenTelemetry), else `null`: the audit event's `traceId`.
   */
  readonly traceId: string | null;
}
