/**
 * Start-up of the trace SDK, for an issuer that should export its traces itself (`gatehouse-issuer
 * start` above all): when an OTLP endpoint is configured — `telemetry.otlpEndpoint` (traces go to
 * `{otlpEndpoint}/v1/traces`), or the standard `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` /
 * `OTEL_EXPORTER_OTLP_ENDPOINT` unless `OTEL_TRACES_EXPORTER=none` — and `telemetry.traces` is on, a
 * `TracerProvider` with a batching OTLP/HTTP exporter is registered as the global one, with an
 * `AsyncLocalStorage` context manager and the W3C Trace Context propagator (so an incoming
 * `traceparent` is continued). The issuer's spans (`src/tracing/`) go to the global provider.
 *
 * An application that registered its own tracer provider keeps it: the issuer registers nothing then
 * (logged). What the issuer registered it unregisters on close, after the last spans are exported.
 *
 * @module
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import type { Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import type { Logger } from 'pino';
import type { ResolvedTelemetryConfig } from '../config/telemetry.js';

/** Whether the standard variables ask for an OTLP trace export. */
function otlpFromEnvironment(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_TRACES_EXPORTER?.trim() === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim());
}

/**
 * The OTLP traces URL the exporter posts to, as the OTLP exporter specification resolves it: the
 * setting's `{otlpEndpoint}/v1/traces`, else `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as given, else
 * `{OTEL_EXPORTER_OTLP_ENDPOINT}/v1/traces`.
 */
function tracesUrl(otlpEndpoint: string | undefined, env: NodeJS.ProcessEnv): string {
  const join = (base: string) => `${base.replace(/\/+$/, '')}/v1/traces`;
  if (otlpEndpoint !== undefined) return join(otlpEndpoint);
  const specific = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  return specific ? specific : join(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() ?? '');
}

/**
 * The trace SDK the issuer registered.
 *
 * @example
 * ```ts
 * const tracing = startTracing(config.telemetry, { log, resource, env: process.env });
 * await tracing?.close();
 * ```
 */
export interface IssuerTracing {
  /** Where the spans go: the OTLP/HTTP traces URL (`{endpoint}/v1/traces`). */
  readonly endpoint: string;
  /** Export the spans left, shut the provider down and unregister what the issuer registered. */
  close(): Promise<void>;
}

/**
 * Register the trace SDK when the settings and the environment ask for an OTLP export (see the module
 * description); `undefined` when they do not, or when a tracer provider is registered already.
 *
 * @example
 * ```ts
 * const tracing = startTracing({ ...config.telemetry, otlpEndpoint: 'http://collector:4318' }, { log, resource });
 * ```
 */
export function startTracing(
  settings: ResolvedTelemetryConfig,
  context_: { readonly log: Logger; readonly resource: Resource; readonly env?: NodeJS.ProcessEnv },
): IssuerTracing | undefined {
  const env = context_.env ?? process.env;
  if (!settings.traces) return undefined;
  if (settings.otlpEndpoint === undefined && !otlpFromEnvironment(env)) return undefined;
  const endpoint = tracesUrl(settings.otlpEndpoint, env);
  const exporter = new OTLPTraceExporter(
    settings.otlpEndpoint === undefined ? {} : { url: `${settings.otlpEndpoint}/v1/traces` },
  );
  const provider = new TracerProvider({
    resource: context_.resource,
    spanProcessors: [new BatchSpanProcessor({ exporter })],
  });
  if (!trace.setGlobalTracerProvider(provider)) {
    context_.log.info(
      { event: 'telemetry.tracer_provider_exists' },
      "a tracer provider is registered already: the issuer's spans go to it",
    );
    void provider.shutdown().catch(() => undefined);
    return undefined;
  }
  const ownsContext = context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const ownsPropagator = propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  return {
    endpoint,
    async close() {
      await provider
        .shutdown()
        .catch((err: unknown) =>
          context_.log.warn(
            { event: 'telemetry.shutdown_failed', err: { message: (err as Error).message } },
            'traces could not be exported on close',
          ),
        );
      trace.disable();
      if (ownsContext) context.disable();
      if (ownsPropagator) propagation.disable();
    },
  };
}
