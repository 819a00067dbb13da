/**
 * The names of the issuer's OpenTelemetry metrics: its instrumentation scope, every metric with its
 * unit, and every attribute. OpenTelemetry's semantic conventions are used where they name the thing
 * (`db.client.*`, `error.type`, `db.system.name`), `gatehouse.issuer.*` otherwise. Stable within a major
 * version; docs/observability.md lists them (a test checks it against this object).
 *
 * No attribute ever holds a token, a secret, a subject or a user id; client ids are bounded
 * (`DEFAULTS.telemetry.maxClientIds`), and every other value comes from a fixed set.
 *
 * @module
 */

/** One metric: its name, instrument, unit (UCUM; `{…}` for counts of a thing) and what it counts. */
export interface MetricName {
  readonly name: string;
  readonly kind: 'counter' | 'gauge' | 'histogram' | 'updowncounter';
  readonly unit: string;
  readonly description: string;
}

const metric = (name: string, kind: MetricName['kind'], unit: string, description: string): MetricName =>
  Object.freeze({ name, kind, unit, description });

/**
 * Every OpenTelemetry name the issuer's metrics use.
 *
 * @example
 * ```ts
 * import { ISSUER_TELEMETRY_NAMES } from '@gatehouse/issuer';
 *
 * const issued = ISSUER_TELEMETRY_NAMES.metrics.tokensIssued.name; // 'gatehouse.issuer.tokens.issued'
 * ```
 */
export const ISSUER_TELEMETRY_NAMES = Object.freeze({
  scope: '@gatehouse/issuer',
  metrics: Object.freeze({
    tokensIssued: metric(
      'gatehouse.issuer.tokens.issued',
      'counter',
      '{response}',
      'Successful token responses, by grant type and client id',
    ),
    tokenErrors: metric(
      'gatehouse.issuer.token.errors',
      'counter',
      '{response}',
      'Token endpoint error responses, by grant type, client id and OAuth error code',
    ),
    tokenExchanges: metric(
      'gatehouse.issuer.token_exchanges',
      'counter',
      '{exchange}',
      'Token exchanges (RFC 8693), by outcome and reason',
    ),
    signInFailures: metric(
      'gatehouse.issuer.sign_in.failures',
      'counter',
      '{attempt}',
      'Failed sign-ins, by reason',
    ),
    signInLocks: metric(
      'gatehouse.issuer.sign_in.locks',
      'counter',
      '{lock}',
      'Client addresses locked out of sign-in, by scope',
    ),
    rateLimited: metric(
      'gatehouse.issuer.rate_limited',
      'counter',
      '{response}',
      'Requests refused with 429, by limit',
    ),
    webhookDeliveries: metric(
      'gatehouse.issuer.webhook.deliveries',
      'counter',
      '{attempt}',
      'Webhook delivery attempts settled by this process, by outcome',
    ),
    webhookDeliveryLag: metric(
      'gatehouse.issuer.webhook.delivery.lag',
      'histogram',
      's',
      'Time from a webhook event to its successful delivery',
    ),
    webhookQueueDepth: metric(
      'gatehouse.issuer.webhook.queue.depth',
      'gauge',
      '{delivery}',
      'Webhook deliveries pending in the database (every instance reports the same queue)',
    ),
    webhookQueueLag: metric(
      'gatehouse.issuer.webhook.queue.lag',
      'gauge',
      's',
      'How long the oldest due webhook delivery has been waiting past its due time (0: none)',
    ),
    httpServerDuration: metric(
      'http.server.request.duration',
      'histogram',
      's',
      'Duration of the HTTP requests the issuer answered',
    ),
    dbOperationDuration: metric(
      'db.client.operation.duration',
      'histogram',
      's',
      'Duration of database statements and transactions',
    ),
    dbConnectionCount: metric(
      'db.client.connection.count',
      'updowncounter',
      '{connection}',
      'Connections of the PostgreSQL pool, by state (idle, used)',
    ),
    dbConnectionMax: metric(
      'db.client.connection.max',
      'updowncounter',
      '{connection}',
      'Most connections the PostgreSQL pool may open (postgres.poolSize)',
    ),
    dbConnectionPending: metric(
      'db.client.connection.pending_requests',
      'updowncounter',
      '{request}',
      'Queries waiting for a connection of the PostgreSQL pool',
    ),
  }),
  attributes: Object.freeze({
    /** The grant type of a token request (`client_credentials`…; `_OTHER` for an unknown one). */
    grantType: 'gatehouse.grant_type',
    /** The client id, for clients registered with the issuer only (`_OTHER` past the bound). */
    clientId: 'gatehouse.client_id',
    /** `ok` or `error` (token exchanges); `delivered`, `retry` or `failed` (webhook attempts). */
    outcome: 'gatehouse.outcome',
    /** The OAuth error code of a token endpoint error (`invalid_grant`, `too_many_requests`…). */
    errorCode: 'gatehouse.error.code',
    /** The stable reason of a refused exchange, failed sign-in or lock (`_OTHER` past the bound). */
    errorReason: 'gatehouse.error.reason',
    /** Which limit answered 429 (`token_per_client`, `token_per_address`, `token_exchange_failures`, `management_per_client`). */
    limit: 'gatehouse.limit',
    /** OpenTelemetry's HTTP method (`GET`, `POST`…; `_OTHER` for any other). */
    httpMethod: 'http.request.method',
    /** OpenTelemetry's HTTP status code of the answer. */
    httpStatus: 'http.response.status_code',
    /** OpenTelemetry's route template, for the fixed protocol and health paths only (absent otherwise). */
    httpRoute: 'http.route',
    /** OpenTelemetry's database system: `sqlite` or `postgresql`. */
    dbSystem: 'db.system.name',
    /** The statement's first keyword (`SELECT`, `INSERT`…), or `transaction`. */
    dbOperation: 'db.operation.name',
    /** OpenTelemetry's pool state: `idle` or `used`. */
    dbConnectionState: 'db.client.connection.state',
    /** OpenTelemetry's pool name: `gatehouse-issuer`. */
    dbPoolName: 'db.client.connection.pool.name',
    /** OpenTelemetry's `error.type`: the class name or code of a failed statement. */
    errorType: 'error.type',
  }),
});
