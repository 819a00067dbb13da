/**
 * The issuer's metrics on one `MeterProvider` ({@link IssuerMetrics}): counts kept in plain numbers and
 * reported by observable counters when the provider collects (as core does: a synchronous
 * `Counter.add()` hashes its attribute set on every call), two histograms (webhook delivery lag,
 * database statement duration) and gauges read at collection (webhook queue, connection pool).
 *
 * Every attribute value comes from a bounded set: client ids past `DEFAULTS.telemetry.maxClientIds`
 * and reasons past `maxReasons` are counted as `_OTHER`.
 *
 * @module
 */
import type { Attributes, Meter, MeterProvider, ObservableResult } from '@opentelemetry/api';
import { DEFAULTS } from '../config/defaults.js';
import type { PoolUsage, StoreObservation } from '../storage/observation.js';
import { ISSUER_TELEMETRY_NAMES, type MetricName } from './names.js';

const { metrics: M, attributes: A } = ISSUER_TELEMETRY_NAMES;

/** OpenTelemetry's word for a value folded into one because of a cardinality bound. */
export const OTHER = '_OTHER';

/** A running count and the attributes it is reported with. */
interface Tally {
  value: number;
  readonly attributes: Attributes;
}

/** Counts by a key; each key's attributes are built once. */
class Tallies {
  readonly #tallies = new Map<string, Tally>();

  add(key: string, attributes: () => Attributes): void {
    let tally = this.#tallies.get(key);
    if (tally === undefined) this.#tallies.set(key, (tally = { value: 0, attributes: attributes() }));
    tally.value++;
  }

  observe(result: ObservableResult): void {
    for (const tally of this.#tallies.values()) result.observe(tally.value, tally.attributes);
  }
}

/** `value` while fewer than `max` distinct values were seen, then {@link OTHER} for new ones. */
class Bounded {
  readonly #seen = new Set<string>();
  readonly #max: number;
  constructor(max: number) {
    this.#max = max;
  }

  of(value: string): string {
    if (this.#seen.has(value)) return value;
    if (this.#seen.size >= this.#max) return OTHER;
    this.#seen.add(value);
    return value;
  }
}

/**
 * Where the webhook queue gauges read the queue (the whole database's, so every instance reports the
 * same numbers: aggregate them with `max`, not `sum`).
 *
 * @example
 * ```ts
 * const queue: QueueSource = async (nowMs) => ({ depth: 3, oldestDueMs: nowMs - 1_500 });
 * ```
 */
export type QueueSource = (nowMs: number) => Promise<{ depth: number; oldestDueMs: number | undefined }>;

/** Buckets of `http.server.request.duration`, OpenTelemetry's advice for it (seconds). */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
/** Buckets of `db.client.operation.duration`, OpenTelemetry's advice for it (seconds). */
const DB_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10];
/** Buckets of the webhook delivery lag: from sub-second to a day of retries (seconds). */
const LAG_BUCKETS = [0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3_600, 21_600, 86_400];

/**
 * The issuer's metrics on one meter provider.
 *
 * @example
 * ```ts
 * const metrics = new IssuerMetrics(meterProvider);
 * metrics.tokenIssued('client_credentials', 'orders-service');
 * ```
 */
export class IssuerMetrics {
  static readonly #byProvider = new WeakMap<MeterProvider, IssuerMetrics>();

  /**
   * The metrics of `provider`, created the first time it is seen: several issuers recording to one
   * provider (two in one process, the global one) add up instead of reporting over each other.
   */
  static of(provider: MeterProvider): IssuerMetrics {
    let metrics = IssuerMetrics.#byProvider.get(provider);
    if (metrics === undefined)
      IssuerMetrics.#byProvider.set(provider, (metrics = new IssuerMetrics(provider)));
    return metrics;
  }

  readonly #meter: Meter;
  readonly #pools: (() => PoolUsage)[] = [];
  #queue: QueueSource | undefined;
  readonly #clients = new Bounded(DEFAULTS.telemetry.maxClientIds);
  readonly #reasons = new Bounded(DEFAULTS.telemetry.maxReasons);
  readonly #issued = new Tallies();
  readonly #tokenErrors = new Tallies();
  readonly #exchanges = new Tallies();
  readonly #signInFailures = new Tallies();
  readonly #signInLocks = new Tallies();
  readonly #rateLimited = new Tallies();
  readonly #webhookDeliveries = new Tallies();
  readonly #dbAttributes = new Map<string, Attributes>();
  readonly #httpAttributes = new Map<string, Attributes>();
  readonly #http;
  readonly #lag;
  readonly #db;
  #dbSystem = 'sqlite';

  private constructor(provider: MeterProvider) {
    const meter = (this.#meter = provider.getMeter(ISSUER_TELEMETRY_NAMES.scope));
    const counter = (spec: MetricName, tallies: Tallies) =>
      meter
        .createObservableCounter(spec.name, { unit: spec.unit, description: spec.description })
        .addCallback((result) => tallies.observe(result));
    counter(M.tokensIssued, this.#issued);
    counter(M.tokenErrors, this.#tokenErrors);
    counter(M.tokenExchanges, this.#exchanges);
    counter(M.signInFailures, this.#signInFailures);
    counter(M.signInLocks, this.#signInLocks);
    counter(M.rateLimited, this.#rateLimited);
    counter(M.webhookDeliveries, this.#webhookDeliveries);
    this.#lag = meter.createHistogram(M.webhookDeliveryLag.name, {
      unit: M.webhookDeliveryLag.unit,
      description: M.webhookDeliveryLag.description,
      advice: { explicitBucketBoundaries: LAG_BUCKETS },
    });
    this.#http = meter.createHistogram(M.httpServerDuration.name, {
      unit: M.httpServerDuration.unit,
      description: M.httpServerDuration.description,
      advice: { explicitBucketBoundaries: HTTP_BUCKETS },
    });
    this.#db = meter.createHistogram(M.dbOperationDuration.name, {
      unit: M.dbOperationDuration.unit,
      description: M.dbOperationDuration.description,
      advice: { explicitBucketBoundaries: DB_BUCKETS },
    });
  }

  /** A successful token response (oidc-provider's `grant.success`). */
  tokenIssued(grantType: string, clientId: string | undefined): void {
    const client = clientId === undefined ? undefined : this.#clients.of(clientId);
    this.#issued.add(`${grantType}\n${client ?? ''}`, () => ({
      [A.grantType]: grantType,
      ...(client === undefined ? {} : { [A.clientId]: client }),
    }));
  }

  /** A token endpoint error (`grant.error`); `grantType` only when it is one the issuer knows. */
  tokenError(grantType: string, clientId: string | undefined, code: string): void {
    const client = clientId === undefined ? undefined : this.#clients.of(clientId);
    const error = this.#reasons.of(code);
    this.#tokenErrors.add(`${grantType}\n${client ?? ''}\n${error}`, () => ({
      [A.grantType]: grantType,
      [A.errorCode]: error,
      ...(client === undefined ? {} : { [A.clientId]: client }),
    }));
  }

  /** A token exchange that succeeded (`reason` undefined) or was refused with `reason`. */
  exchanged(reason: string | undefined): void {
    if (reason === undefined) {
      this.#exchanges.add('ok', () => ({ [A.outcome]: 'ok' }));
      return;
    }
    const why = this.#reasons.of(reason);
    this.#exchanges.add(`error\n${why}`, () => ({ [A.outcome]: 'error', [A.errorReason]: why }));
  }

  /** A failed sign-in. */
  signInFailed(reason: string): void {
    const why = this.#reasons.of(reason);
    this.#signInFailures.add(why, () => ({ [A.errorReason]: why }));
  }

  /** A client address locked out of sign-in (`reason`: which lock). */
  signInLocked(reason: string): void {
    const why = this.#reasons.of(reason);
    this.#signInLocks.add(why, () => ({ [A.errorReason]: why }));
  }

  /** A request refused with 429 by `limit`. */
  rateLimited(limit: string): void {
    this.#rateLimited.add(limit, () => ({ [A.limit]: limit }));
  }

  /**
   * A webhook attempt settled: `delivered`, `retry` or `failed` (given up); `lagSeconds` from the event
   * to a delivery.
   */
  webhookSettled(outcome: 'delivered' | 'retry' | 'failed', lagSeconds?: number): void {
    this.#webhookDeliveries.add(outcome, () => ({ [A.outcome]: outcome }));
    if (lagSeconds !== undefined) this.#lag.record(Math.max(0, lagSeconds));
  }

  /**
   * An HTTP request was answered with `status` after `seconds`; `method` one of the known ones (else
   * `_OTHER`), `route` from the fixed list of `telemetry/http.ts` or `undefined`.
   */
  httpRequest(method: string, status: number, route: string | undefined, seconds: number): void {
    const key = `${method} ${status} ${route ?? ''}`;
    let attributes = this.#httpAttributes.get(key);
    if (attributes === undefined) {
      attributes = {
        [A.httpMethod]: method,
        [A.httpStatus]: status,
        ...(route === undefined ? {} : { [A.httpRoute]: route }),
      };
      // Bounded by its parts: a few methods, the statuses the issuer answers with, a fixed route list.
      this.#httpAttributes.set(key, attributes);
    }
    this.#http.record(seconds, attributes);
  }

  /** A statement or transaction took `seconds` (and failed with `error`, if set). */
  readonly statement = (operation: string, seconds: number, error: unknown): void => {
    const type = error === undefined ? undefined : errorType(error);
    const key = type === undefined ? operation : `${operation}\n${type}`;
    let attributes = this.#dbAttributes.get(key);
    if (attributes === undefined) {
      attributes = {
        [A.dbSystem]: this.#dbSystem,
        [A.dbOperation]: operation,
        ...(type === undefined ? {} : { [A.errorType]: type }),
      };
      this.#dbAttributes.set(key, attributes);
    }
    this.#db.record(seconds, attributes);
  };

  /** Time the statements of a store and report its pool (PostgreSQL; several pools add up). */
  watchStore(observation: StoreObservation): void {
    this.#dbSystem = observation.system;
    observation.time(this.statement);
    if (observation.poolUsage === undefined) return;
    this.#pools.push(observation.poolUsage);
    if (this.#pools.length > 1) return;
    const usage = (): PoolUsage => {
      const total = { used: 0, idle: 0, pending: 0, max: 0 };
      for (const pool of this.#pools) {
        const now = pool();
        total.used += now.used;
        total.idle += now.idle;
        total.pending += now.pending;
        total.max += now.max;
      }
      return total;
    };
    const pool = { [A.dbPoolName]: 'gatehouse-issuer' };
    const used = { ...pool, [A.dbConnectionState]: 'used' };
    const idle = { ...pool, [A.dbConnectionState]: 'idle' };
    const gauge = (spec: MetricName, observe: (result: ObservableResult) => void) =>
      this.#meter
        .createObservableUpDownCounter(spec.name, { unit: spec.unit, description: spec.description })
        .addCallback(observe);
    gauge(M.dbConnectionCount, (result) => {
      const now = usage();
      result.observe(now.used, used);
      result.observe(now.idle, idle);
    });
    gauge(M.dbConnectionMax, (result) => result.observe(usage().max, pool));
    gauge(M.dbConnectionPending, (result) => result.observe(usage().pending, pool));
  }

  /** Report the webhook queue read from `source` at each collection (nothing when it fails); the first source only. */
  watchQueue(source: QueueSource): void {
    if (this.#queue !== undefined) return;
    this.#queue = source;
    type Read = { queue: Awaited<ReturnType<QueueSource>> | undefined; now: number };
    let reading: Promise<Read> | undefined;
    // Both gauges are read in one collection, their callbacks started together: one query serves them.
    const read = (): Promise<Read> => {
      if (reading === undefined) {
        const now = Date.now();
        reading = source(now)
          .then((queue) => ({ queue, now }))
          .catch(() => ({ queue: undefined, now }))
          .finally(() => {
            reading = undefined;
          });
      }
      return reading;
    };
    this.#meter
      .createObservableGauge(M.webhookQueueDepth.name, {
        unit: M.webhookQueueDepth.unit,
        description: M.webhookQueueDepth.description,
      })
      .addCallback(async (result) => {
        const { queue } = await read();
        if (queue !== undefined) result.observe(queue.depth);
      });
    this.#meter
      .createObservableGauge(M.webhookQueueLag.name, {
        unit: M.webhookQueueLag.unit,
        description: M.webhookQueueLag.description,
      })
      .addCallback(async (result) => {
        const { queue, now } = await read();
        if (queue === undefined) return;
        result.observe(queue.oldestDueMs === undefined ? 0 : Math.max(0, now - queue.oldestDueMs) / 1_000);
      });
  }
}

/** OpenTelemetry's `error.type` of a failed statement: its SQLSTATE or code, else its class name. */
function errorType(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[A-Z0-9_]{1,32}$/.test(code)) return code;
  const name = error instanceof Error ? error.name : '';
  return /^[A-Za-z]{1,64}$/.test(name) ? name : OTHER;
}
