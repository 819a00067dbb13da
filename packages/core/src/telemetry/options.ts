/**
 * The `telemetry` option of a verifier: where its spans and metrics go, or `false` for none. Validated
 * when the verifier is created, like every other option (unknown keys are refused with the closest
 * known name).
 *
 * @module
 */
import { DEFAULTS } from '../defaults.js';
import { fail } from '../internal/fail.js';
import { rejectUnknownKeys } from '../internal/known-keys.js';
import type { MeterProviderLike, OpenTelemetryApiLike, TracerProviderLike } from './types.js';

/**
 * Options of OpenTelemetry in a verifier. Without any, spans and metrics go to the global providers of
 * `@opentelemetry/api` when it is installed (see docs/observability.md), and nothing happens when it
 * is not. `telemetry: false` turns both off.
 *
 * @example
 * ```ts
 * import * as api from '@opentelemetry/api';
 * import { createVerifier } from '@gatehouse/core';
 *
 * // A bundled runtime (Workers, browsers), where core cannot load @opentelemetry/api itself:
 * const verifier = createVerifier({ issuer, audience, telemetry: { api } });
 * ```
 */
export interface TelemetryOptions {
  /** Where spans go. Default: the global `TracerProvider` of `@opentelemetry/api` (or `api`). */
  tracerProvider?: TracerProviderLike;
  /** Where metrics go. Default: the global `MeterProvider` of `@opentelemetry/api` (or `api`). */
  meterProvider?: MeterProviderLike;
  /**
   * The `@opentelemetry/api` module, for runtimes where core cannot load it synchronously by itself
   * (bundled Workers, browsers). Default: loaded by core when it is installed.
   */
  api?: OpenTelemetryApiLike;
  /** Record the verified token's subject on spans, as `enduser.id` (personal data). Default `false`. */
  recordSubject?: boolean;
  /**
   * Start the `gatehouse.authenticate` span around each call. `false` keeps the metrics and starts no
   * span: an SDK's span costs 1–3 µs of CPU (its IDs, clock and processor), for an API where that
   * matters more than the span. Default `true`.
   */
  spans?: boolean;
}

/**
 * {@link TelemetryOptions} after validation (`verifier.options.telemetry`, or `false` when off).
 *
 * @example
 * ```ts
 * const { telemetry } = verifier.options;
 * if (telemetry !== false && telemetry.recordSubject) log.info('subjects are recorded on spans');
 * ```
 */
export interface ResolvedTelemetryOptions {
  readonly tracerProvider: TracerProviderLike | undefined;
  readonly meterProvider: MeterProviderLike | undefined;
  readonly api: OpenTelemetryApiLike | undefined;
  readonly recordSubject: boolean;
  readonly spans: boolean;
}

/** Every member of {@link TelemetryOptions}. */
const TELEMETRY_OPTIONS: readonly string[] = Object.keys({
  tracerProvider: 1,
  meterProvider: 1,
  api: 1,
  recordSubject: 1,
  spans: 1,
} satisfies Record<keyof TelemetryOptions, 1>);

const DEFAULT_TELEMETRY: ResolvedTelemetryOptions = Object.freeze({
  tracerProvider: undefined,
  meterProvider: undefined,
  api: undefined,
  recordSubject: DEFAULTS.telemetry.recordSubject,
  spans: DEFAULTS.telemetry.spans,
});

/** Whether `value` is an object with a function named `method`. */
const hasMethod = (value: unknown, method: string): boolean =>
  value !== null &&
  (typeof value === 'object' || typeof value === 'function') &&
  typeof (value as Record<string, unknown>)[method] === 'function';

/**
 * Validate the `telemetry` option: an object of {@link TelemetryOptions}, or `false`. Throws a
 * `TypeError` naming the option.
 *
 * @example
 * ```ts
 * resolveTelemetryOptions({ recordSubjects: true });
 * // TypeError: unknown option "telemetry.recordSubjects" (did you mean "telemetry.recordSubject"?)
 * ```
 */
export function resolveTelemetryOptions(value: unknown): ResolvedTelemetryOptions | false {
  if (value === false) return false;
  if (value === undefined) return DEFAULT_TELEMETRY;
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return fail('telemetry', 'must be an object or false');
  rejectUnknownKeys(value, TELEMETRY_OPTIONS, 'telemetry.');
  const options = value as TelemetryOptions;
  const { tracerProvider, meterProvider, api } = options;
  if (tracerProvider !== undefined && !hasMethod(tracerProvider, 'getTracer'))
    fail('telemetry.tracerProvider', 'must be an OpenTelemetry TracerProvider (with getTracer())');
  if (meterProvider !== undefined && !hasMethod(meterProvider, 'getMeter'))
    fail('telemetry.meterProvider', 'must be an OpenTelemetry MeterProvider (with getMeter())');
  if (api !== undefined && !hasMethod((api as { trace?: unknown } | null)?.trace, 'getTracerProvider'))
    fail('telemetry.api', 'must be the @opentelemetry/api module (with trace.getTracerProvider())');
  const recordSubject = options.recordSubject ?? DEFAULTS.telemetry.recordSubject;
  if (typeof recordSubject !== 'boolean') fail('telemetry.recordSubject', 'must be a boolean');
  const spans = options.spans ?? DEFAULTS.telemetry.spans;
  if (typeof spans !== 'boolean') fail('telemetry.spans', 'must be a boolean');
  return Object.freeze({ tracerProvider, meterProvider, api, recordSubject, spans });
}
