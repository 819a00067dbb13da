/**
 * Where the issuer's counts happen, each hooked from outside the code it counts: oidc-provider's
 * `grant.success` / `grant.error` events (token responses, token endpoint errors and its 429s), the
 * audit trail (token exchanges, failed sign-ins, locks), the Management API's rate limit, the webhook
 * dispatcher's settled attempts, and the store (statements, pool, webhook queue).
 *
 * @module
 */
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { RateLimitedError, TokenRateLimitedError, TooManyExchangeFailuresError } from '../errors.js';
import { TOKEN_EXCHANGE_GRANT_TYPE } from '../grants/token-types.js';
import type { AuditTrail } from '../internal/audit.js';
import { observationOf } from '../storage/observation.js';
import { executorOf } from '../storage/sql/index.js';
import type { NewAuditEvent, Store } from '../storage/store.js';
import type { WebhookSettled } from '../webhooks/dispatcher.js';
import { type IssuerMetrics, OTHER } from './metrics.js';

/** Grant types counted by name on errors (a request may name any; only these are kept). */
const GRANT_TYPES = new Set([
  'authorization_code',
  'client_credentials',
  'refresh_token',
  TOKEN_EXCHANGE_GRANT_TYPE,
  'urn:ietf:params:oauth:grant-type:device_code',
  'urn:openid:params:grant-type:ciba',
]);

const grantTypeOf = (ctx: KoaContextWithOIDC): string => {
  const grant = ctx.oidc?.params?.grant_type;
  return typeof grant === 'string' && GRANT_TYPES.has(grant) ? grant : OTHER;
};

/** The limit behind a 429 of the token endpoint, if it is one. */
function limitOf(err: unknown): string | undefined {
  if (err instanceof TokenRateLimitedError) return `token_per_${err.scope}`;
  if (err instanceof TooManyExchangeFailuresError) return 'token_exchange_failures';
  return (err as { status?: unknown } | null)?.status === 429 ? 'other' : undefined;
}

/**
 * Count token responses and token endpoint errors of `provider` (called for each provider built: one
 * is built again when the signing keys change).
 *
 * @example
 * ```ts
 * watchProvider(oidc.provider, metrics);
 * ```
 */
export function watchProvider(provider: Provider, metrics: IssuerMetrics): void {
  provider.on('grant.success', (ctx: KoaContextWithOIDC) => {
    metrics.tokenIssued(grantTypeOf(ctx), ctx.oidc.client?.clientId);
  });
  provider.on('grant.error', (ctx: KoaContextWithOIDC, err: unknown) => {
    const code = (err as { error?: unknown } | null)?.error;
    metrics.tokenError(
      grantTypeOf(ctx),
      ctx.oidc?.client?.clientId,
      typeof code === 'string' ? code : 'server_error',
    );
    const limit = limitOf(err);
    if (limit !== undefined) metrics.rateLimited(limit);
  });
}

/** Count what an audit event says (exchanges, failed sign-ins, locks). */
function countAudit(metrics: IssuerMetrics, event: Pick<NewAuditEvent, 'type' | 'reason'>): void {
  const reason = event.reason ?? 'unknown';
  if (event.type === 'token_exchange.succeeded') metrics.exchanged(undefined);
  else if (event.type === 'token_exchange.failed') metrics.exchanged(reason);
  else if (event.type === 'sign_in.failed') metrics.signInFailed(reason);
  else if (event.type === 'sign_in.locked') metrics.signInLocked(reason);
}

/**
 * `audit`, counting each event once it is recorded.
 *
 * @example
 * ```ts
 * const audit = countingAudit(createAuditTrail(store, log, epoch), metrics);
 * ```
 */
export function countingAudit(audit: AuditTrail, metrics: IssuerMetrics): AuditTrail {
  return {
    async record(event) {
      const record = await audit.record(event);
      countAudit(metrics, record);
      return record;
    },
    prepare: (event) => audit.prepare(event),
    stored(event) {
      audit.stored(event);
      countAudit(metrics, event);
    },
  };
}

/**
 * The Management API's rate limit, counting its 429s.
 *
 * @example
 * ```ts
 * const limit = countingLimit(protection.limitManagement, metrics);
 * ```
 */
export function countingLimit<A>(
  limit: (auth: A) => Promise<void>,
  metrics: IssuerMetrics,
): (auth: A) => Promise<void> {
  return async (auth) => {
    try {
      await limit(auth);
    } catch (err) {
      if (err instanceof RateLimitedError) metrics.rateLimited('management_per_client');
      throw err;
    }
  };
}

/**
 * What the webhook dispatcher reports of each settled attempt, counted.
 *
 * @example
 * ```ts
 * startWebhookDispatcher({ store, log, box, policy, onSettled: webhookCounter(metrics) });
 * ```
 */
export function webhookCounter(metrics: IssuerMetrics): (settled: WebhookSettled) => void {
  return ({ status, createdAt, nowMs }) => {
    if (status === 'delivered') metrics.webhookSettled('delivered', nowMs / 1_000 - createdAt);
    else metrics.webhookSettled(status === 'pending' ? 'retry' : 'failed');
  };
}

/** Pending deliveries, and the due time of the oldest one already due (the `webhook_deliveries_due` index). */
const QUEUE_SQL =
  "SELECT COUNT(*) AS depth, MIN(CASE WHEN next_attempt_ms <= ? THEN next_attempt_ms END) AS oldest FROM webhook_deliveries WHERE status = 'pending'";

/**
 * Time the store's statements, report its pool and its webhook queue (a store built by
 * `createSqlStore`; a custom driver reports nothing of these). Returns what stops the timing.
 *
 * @example
 * ```ts
 * watchStore(store, metrics);
 * ```
 */
export function watchStore(store: Store, metrics: IssuerMetrics): () => void {
  const observation = observationOf(store);
  if (observation !== undefined) metrics.watchStore(observation);
  // A store the application handed in outlives the issuer: stop timing its statements on close.
  const stop = () => observation?.time(undefined);
  const db = executorOf(store);
  if (db === undefined) return stop;
  metrics.watchQueue(async (nowMs) => {
    const row = await db.one(QUEUE_SQL, [nowMs]);
    const oldest = row?.oldest;
    return {
      depth: Number(row?.depth ?? 0),
      oldestDueMs: oldest === null || oldest === undefined ? undefined : Number(oldest),
    };
  });
  return stop;
}
