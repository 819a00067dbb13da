/**
 * The OpenTelemetry SDK with in-memory exporters, for core's telemetry tests: a tracer provider whose
 * finished spans are kept, a meter provider whose metrics are collected on demand, and a search of
 * every recorded attribute value for a secret.
 */
import { type Attributes, context, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  type DataPoint,
  MeterProvider,
  type MetricData,
  MetricReader,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';

/** A reader whose `collect()` the test calls. */
class CollectingReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

export interface Otel {
  readonly tracerProvider: TracerProvider;
  readonly meterProvider: MeterProvider;
  /** Every span finished so far (after the processor has exported it). */
  spans(): Promise<ReadableSpan[]>;
  /** Every metric, as collected now. */
  metrics(): Promise<MetricData[]>;
  /** The data points of the metric `name`, as collected now. */
  points(name: string): Promise<DataPoint<unknown>[]>;
  /** The value of metric `name` for the data point whose attributes include `attributes` (0 when none). */
  value(name: string, attributes?: Attributes): Promise<number>;
  /** Every attribute value recorded anywhere (spans, span events, metric points), as strings. */
  recordedValues(): Promise<string[]>;
  shutdown(): Promise<void>;
}

export function startOtel(): Otel {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const reader = new CollectingReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const collect = async (): Promise<ResourceMetrics> => (await reader.collect()).resourceMetrics;
  const all = async () => (await collect()).scopeMetrics.flatMap((scope) => scope.metrics);
  const points = async (name: string) =>
    (await all())
      .filter((metric) => metric.descriptor.name === name)
      .flatMap((metric) => metric.dataPoints as DataPoint<unknown>[]);
  const spans = async () => {
    await tracerProvider.forceFlush();
    return exporter.getFinishedSpans();
  };
  return {
    tracerProvider,
    meterProvider,
    spans,
    metrics: all,
    points,
    async value(name, attributes = {}) {
      const found = (await points(name)).filter((point) =>
        Object.entries(attributes).every(([key, value]) => point.attributes[key] === value),
      );
      return found.reduce((sum, point) => {
        const v = point.value as number | { count: number };
        return sum + (typeof v === 'number' ? v : v.count);
      }, 0);
    },
    async recordedValues() {
      const values: unknown[] = [];
      for (const span of await spans()) {
        values.push(span.name, ...Object.values(span.attributes), span.status.message);
        for (const event of span.events) values.push(event.name, ...Object.values(event.attributes ?? {}));
      }
      for (const scope of (await collect()).scopeMetrics)
        for (const metric of scope.metrics)
          for (const point of metric.dataPoints as DataPoint<unknown>[])
            values.push(...Object.keys(point.attributes), ...Object.values(point.attributes));
      return values.filter((v) => v !== undefined).map(String);
    },
    async shutdown() {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}

/**
 * Register the AsyncLocalStorage context manager, `tracerProvider` and (when given) `meterProvider`
 * as OpenTelemetry's globals; returns the undo.
 */
export function registerGlobally(tracerProvider: TracerProvider, meterProvider?: MeterProvider): () => void {
  const manager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(manager);
  trace.setGlobalTracerProvider(tracerProvider);
  if (meterProvider !== undefined) metrics.setGlobalMeterProvider(meterProvider);
  return () => {
    trace.disable();
    metrics.disable();
    context.disable();
    manager.disable();
  };
}

/** The parts of a compact JWS (header, payload, signature) and the whole of it. */
export const partsOf = (token: string): string[] => [token, ...token.split('.')];
