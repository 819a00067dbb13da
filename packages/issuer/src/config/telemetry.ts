/**
 * The `telemetry` settings of the issuer: whether it records metrics, where it sends them (an OTLP/HTTP
 * collector, named here or by the standard `OTEL_EXPORTER_OTLP_*` variables), and the opt-in
 * Prometheus `/metrics` endpoint — off by default; on a port of its own bound to loopback, or on the
 * issuer's port only behind a bearer token (`prometheusToken`, a secret: environment only on the CLI,
 * never logged, compared in constant time).
 *
 * @module
 */
import type { MeterProvider } from '@opentelemetry/api';
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { PROMETHEUS_MODES, type PrometheusMode } from './constants.js';
import { DEFAULTS } from './defaults.js';
import { integer, oneOf, parseSettings, text, withDefaults } from './parse.js';

/**
 * Telemetry settings.
 *
 * @example
 * ```ts
 * import { createIssuer } from '@gatehouse/issuer';
 *
 * // OTLP to a collector, and /metrics for a Prometheus on the same host (127.0.0.1:9464).
 * const issuer = await createIssuer({
 *   baseUrl: 'https://id.example.com',
 *   telemetry: { otlpEndpoint: 'http://otel-collector:4318', prometheus: 'own-port' },
 * });
 * ```
 */
export interface TelemetryConfig {
  /** Record metrics; `false` installs no hook at all. Default `true`. */
  metrics?: boolean;
  /**
   * Register the trace SDK and export the issuer's spans when an OTLP endpoint is configured (unless a
   * tracer provider is registered already). Default `true`.
   */
  traces?: boolean;
  /**
   * Base URL of an OTLP/HTTP collector (metrics go to `{otlpEndpoint}/v1/metrics`, traces to
   * `/v1/traces`). Default: none — then the standard `OTEL_EXPORTER_OTLP_*ENDPOINT` variables when set,
   * else no OTLP export.
   */
  otlpEndpoint?: string;
  /** Seconds between two OTLP exports (1–3600). Default 60. */
  exportInterval?: number;
  /** `service.name` of the issuer's metrics. Default `OTEL_SERVICE_NAME`, else `gatehouse-issuer`. */
  serviceName?: string;
  /** The Prometheus `/metrics` endpoint: `off`, `own-port` or `issuer-port`. Default `off`. */
  prometheus?: PrometheusMode;
  /** Port of the own `/metrics` server (`own-port`; 0 picks a free one). Default 9464. */
  prometheusPort?: number;
  /** Interface of the own `/metrics` server. Default `127.0.0.1`. */
  prometheusHost?: string;
  /**
   * Bearer token `/metrics` requires (at least 32 characters): required with `issuer-port`, optional
   * with `own-port`. A secret: on the CLI only through `GATEHOUSE_TELEMETRY_PROMETHEUS_TOKEN`.
   */
  prometheusToken?: string;
  /**
   * A meter provider of the application's to record to (embedding only), instead of the one the issuer
   * builds from the settings above; nothing is exported by the issuer then.
   */
  meterProvider?: MeterProvider;
}

/**
 * {@link TelemetryConfig} after defaults and validation (`issuer.config.telemetry`).
 *
 * @example
 * ```ts
 * const { prometheus, prometheusPort }: ResolvedTelemetryConfig = issuer.config.telemetry;
 * ```
 */
export interface ResolvedTelemetryConfig {
  readonly metrics: boolean;
  readonly traces: boolean;
  readonly otlpEndpoint: string | undefined;
  readonly exportInterval: number;
  readonly serviceName: string | undefined;
  readonly prometheus: PrometheusMode;
  readonly prometheusPort: number;
  readonly prometheusHost: string;
  readonly prometheusToken: string | undefined;
  readonly meterProvider: MeterProvider | undefined;
}

const TOKEN_TEXT = 'must be a string of at least 32 characters';

const TELEMETRY = z.strictObject({
  metrics: z.boolean().optional(),
  traces: z.boolean().optional(),
  otlpEndpoint: text()
    .refine((url) => URL.canParse(url) && /^https?:$/.test(new URL(url).protocol), {
      error: 'must be an http(s) URL, e.g. http://otel-collector:4318',
    })
    .optional(),
  exportInterval: integer(1, 3_600).optional(),
  serviceName: text().max(256, { error: 'must be at most 256 characters' }).optional(),
  prometheus: oneOf(PROMETHEUS_MODES).optional(),
  prometheusPort: integer(0, 65_535).optional(),
  prometheusHost: text().optional(),
  prometheusToken: z.string({ error: TOKEN_TEXT }).min(32, { error: TOKEN_TEXT }).optional(),
  meterProvider: z
    .custom<MeterProvider>(
      (value) => typeof (value as { getMeter?: unknown } | null)?.getMeter === 'function',
      { error: 'must be an OpenTelemetry MeterProvider (with getMeter())' },
    )
    .optional(),
});

/**
 * Validate the `telemetry` setting and apply {@link DEFAULTS}`.telemetry`. Throws a `ConfigError` naming
 * a bad or unknown member, or `telemetry.prometheusToken` when `issuer-port` has none.
 *
 * @example
 * ```ts
 * resolveTelemetryConfig({ prometheus: 'issuer-port' });
 * // ConfigError: "telemetry.prometheusToken" is required when telemetry.prometheus is "issuer-port" (the issuer's port is public)
 * ```
 */
export function resolveTelemetryConfig(value: TelemetryConfig | undefined): ResolvedTelemetryConfig {
  const given = parseSettings(TELEMETRY, value, 'telemetry');
  const { metrics, traces, exportInterval, prometheus, prometheusPort, prometheusHost } = DEFAULTS.telemetry;
  const resolved = {
    ...withDefaults({ metrics, traces, exportInterval, prometheus, prometheusPort, prometheusHost }, given),
    otlpEndpoint: given.otlpEndpoint?.replace(/\/+$/, ''),
    serviceName: given.serviceName,
    prometheusToken: given.prometheusToken,
    meterProvider: given.meterProvider,
  };
  if (resolved.prometheus === 'issuer-port' && resolved.prometheusToken === undefined)
    throw new ConfigError(
      'telemetry.prometheusToken',
      'is required when telemetry.prometheus is "issuer-port" (the issuer\'s port is public)',
    );
  if (resolved.prometheus !== 'off' && !resolved.metrics)
    throw new ConfigError('telemetry.prometheus', 'must be "off" when telemetry.metrics is false');
  return Object.freeze(resolved);
}
