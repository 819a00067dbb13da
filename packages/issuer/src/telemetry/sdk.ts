/**
 * Start-up of the issuer's telemetry: the trace SDK when traces should be exported (`traces.ts`), and
 * which `MeterProvider` the metrics record to, and what exports from it:
 *
 * - `telemetry.metrics: false`: none, and no hook anywhere.
 * - `telemetry.meterProvider` (embedding): the application's; the issuer exports nothing itself.
 * - Otherwise, when something should export — an OTLP endpoint (`telemetry.otlpEndpoint`, or the
 *   standard `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT` / `OTEL_EXPORTER_OTLP_ENDPOINT`, unless
 *   `OTEL_METRICS_EXPORTER=none`) or the Prometheus endpoint — a provider of the issuer's own with those
 *   readers, `service.name` from `telemetry.serviceName`, `OTEL_SERVICE_NAME` or `gatehouse-issuer`.
 * - Else the global provider of `@opentelemetry/api` (a no-op unless the application registered one
 *   before creating the issuer).
 *
 * @module
 */
import type { AddressInfo } from 'node:net';
import { metrics as globalMetrics, type MeterProvider } from '@opentelemetry/api';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { type Resource, resourceFromAttributes } from '@opentelemetry/resources';
import {
  type MetricReader,
  PeriodicExportingMetricReader,
  MeterProvider as SdkMeterProvider,
} from '@opentelemetry/sdk-metrics';
import type { Logger } from 'pino';
import { packageVersion } from '../cli/version.js';
import { DEFAULTS } from '../config/defaults.js';
import type { ResolvedTelemetryConfig } from '../config/telemetry.js';
import type { RequestHandler } from '../front.js';
import { measureRequests } from './http.js';
import { IssuerMetrics } from './metrics.js';
import { createPrometheusEndpoint, METRICS_PATH, withMetricsPath } from './prometheus.js';
import { startTracing } from './traces.js';

/**
 * The issuer's metrics once started.
 *
 * @example
 * ```ts
 * const telemetry = await startTelemetry(config.telemetry, { log, basePath: config.basePath });
 * telemetry.metrics?.tokenIssued('client_credentials', 'orders');
 * await telemetry.close();
 * ```
 */
export interface IssuerTelemetry {
  /** Where counts go; `undefined` with `telemetry.metrics: false`. */
  readonly metrics: IssuerMetrics | undefined;
  /** The own `/metrics` server's address (`prometheus: own-port`). */
  readonly metricsAddress: AddressInfo | undefined;
  /** The OTLP traces URL, when the issuer registered the trace SDK itself. */
  readonly tracesEndpoint?: string | undefined;
  /** `handler`, serving `{basePath}/metrics` too when `prometheus` is `issuer-port`. */
  serve(handler: RequestHandler): RequestHandler;
  /** Export what is left (OTLP), shut the provider the issuer built down, close the own server. */
  close(): Promise<void>;
}

/** Whether the standard variables ask for an OTLP metric export. */
function otlpFromEnvironment(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_METRICS_EXPORTER?.trim() === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim());
}

const isLoopback = (host: string) => /^(?:127\.\d+\.\d+\.\d+|::1|localhost)$/i.test(host);

/**
 * Start the issuer's metrics as the `telemetry` settings say (see the module description). A taken
 * Prometheus port rejects with a `ListenError` naming `telemetry.prometheusPort`.
 *
 * @example
 * ```ts
 * const telemetry = await startTelemetry(config.telemetry, { log, basePath: '' });
 * ```
 */
export async function startTelemetry(
  settings: ResolvedTelemetryConfig,
  context: { readonly log: Logger; readonly basePath: string; readonly env?: NodeJS.ProcessEnv },
): Promise<IssuerTelemetry> {
  const env = context.env ?? process.env;
  const resource = resourceFromAttributes({
    'service.name': settings.serviceName ?? (env.OTEL_SERVICE_NAME?.trim() || DEFAULTS.telemetry.serviceName),
    'service.version': packageVersion(),
  });
  const tracing = startTracing(settings, { log: context.log, resource, env });
  if (tracing !== undefined)
    context.log.info({ event: 'telemetry.traces_started' }, 'traces exported over OTLP');
  try {
    const started = await startMetrics(settings, { ...context, env, resource });
    const { metrics } = started;
    return {
      ...started,
      tracesEndpoint: tracing?.endpoint,
      // Every request measured (http.server.request.duration), /metrics included when on the issuer's port.
      serve: (handler) =>
        metrics === undefined
          ? started.serve(handler)
          : measureRequests(started.serve(handler), metrics, context.basePath),
      async close() {
        await started.close();
        await tracing?.close();
      },
    };
  } catch (err) {
    await tracing?.close();
    throw err;
  }
}

/** The metrics part of {@link startTelemetry}. */
async function startMetrics(
  settings: ResolvedTelemetryConfig,
  context: {
    readonly log: Logger;
    readonly basePath: string;
    readonly env: NodeJS.ProcessEnv;
    readonly resource: Resource;
  },
): Promise<IssuerTelemetry> {
  const { log, basePath, env, resource } = context;
  const off: IssuerTelemetry = {
    metrics: undefined,
    metricsAddress: undefined,
    serve: (handler) => handler,
    close: async () => undefined,
  };
  if (!settings.metrics) return off;
  if (settings.meterProvider !== undefined)
    return { ...off, metrics: IssuerMetrics.of(settings.meterProvider) };

  const readers: MetricReader[] = [];
  const exporters: string[] = [];
  if (settings.otlpEndpoint !== undefined || otlpFromEnvironment(env)) {
    const exporter = new OTLPMetricExporter(
      settings.otlpEndpoint === undefined ? {} : { url: `${settings.otlpEndpoint}/v1/metrics` },
    );
    readers.push(
      new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: settings.exportInterval * 1_000 }),
    );
    exporters.push('otlp');
  }
  const prometheus = settings.prometheus === 'off' ? undefined : createPrometheusEndpoint(settings);
  if (prometheus !== undefined) {
    // The exporter pins its own copy of sdk-metrics (3.1.0 beside the issuer's 3.1.1): the same class
    // at run time, two declarations for TypeScript.
    readers.push(prometheus.reader as unknown as MetricReader);
    exporters.push('prometheus');
  }
  if (readers.length === 0) return { ...off, metrics: IssuerMetrics.of(globalMetrics.getMeterProvider()) };

  const provider: MeterProvider & { shutdown(): Promise<void> } = new SdkMeterProvider({ resource, readers });
  let metricsAddress: AddressInfo | undefined;
  try {
    metricsAddress = await prometheus?.start();
  } catch (err) {
    await provider.shutdown().catch(() => undefined);
    throw err;
  }
  log.info(
    {
      event: 'telemetry.started',
      exporters,
      ...(metricsAddress === undefined
        ? settings.prometheus === 'issuer-port'
          ? { metricsPath: `${basePath}${METRICS_PATH}` }
          : {}
        : { metricsHost: metricsAddress.address, metricsPort: metricsAddress.port }),
      metricsToken: settings.prometheusToken !== undefined,
    },
    'metrics started',
  );
  if (
    metricsAddress !== undefined &&
    settings.prometheusToken === undefined &&
    !isLoopback(settings.prometheusHost)
  )
    log.warn(
      { event: 'telemetry.metrics_exposed', metricsHost: settings.prometheusHost },
      '/metrics is served without a token on a non-loopback interface: anyone who reaches it reads the metrics',
    );
  return {
    metrics: IssuerMetrics.of(provider),
    metricsAddress,
    serve: (handler) =>
      settings.prometheus === 'issuer-port' && prometheus !== undefined
        ? withMetricsPath(handler, basePath, prometheus)
        : handler,
    async close() {
      await prometheus?.close();
      await provider
        .shutdown()
        .catch((err: unknown) =>
          log.warn(
            { event: 'telemetry.shutdown_failed', err: { message: (err as Error).message } },
            'metrics could not be exported on close',
          ),
        );
    },
  };
}
