/**
 * The parts of the OpenTelemetry API that core uses, as structural types. `@opentelemetry/api` is an
 * optional peer dependency, so core's public declarations cannot import its types: a project without
 * it must still type-check. The real API objects (a `TracerProvider`, a `MeterProvider`, the API module
 * itself) satisfy these interfaces.
 *
 * @module
 */

/** Attribute values core records: strings, numbers and booleans only. */
export type AttributeValue = string | number | boolean;

/** A set of attributes. */
export type Attributes = Readonly<Record<string, AttributeValue>>;

/**
 * The part of an OpenTelemetry `Span` core calls.
 *
 * @example
 * ```ts
 * const span: SpanLike = tracer.startSpan('gatehouse.authenticate');
 * if (span.isRecording()) span.setAttribute('gatehouse.outcome', 'ok');
 * span.end();
 * ```
 */
export interface SpanLike {
  isRecording(): boolean;
  setAttribute(key: string, value: AttributeValue): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  recordException(exception: Error): unknown;
  end(): void;
}

/**
 * The part of an OpenTelemetry `Tracer` core calls.
 *
 * @example
 * ```ts
 * const tracer: TracerLike = tracerProvider.getTracer('@gatehouse/core');
 * ```
 */
export interface TracerLike {
  startSpan(name: string, options?: { kind?: number; attributes?: Attributes }): SpanLike;
}

/**
 * An OpenTelemetry `TracerProvider` (the SDK's `BasicTracerProvider` or `NodeTracerProvider`, or
 * `trace.getTracerProvider()` of `@opentelemetry/api`).
 *
 * @example
 * ```ts
 * import { BasicTracerProvider } from '@opentelemetry/sdk-trace';
 * const tracerProvider: TracerProviderLike = new BasicTracerProvider();
 * ```
 */
export interface TracerProviderLike {
  getTracer(name: string, version?: string): TracerLike;
}

/** An observation callback's result object. */
export interface ObservableResultLike {
  observe(value: number, attributes?: Attributes): void;
}

/** An asynchronous instrument (observable counter or gauge). */
export interface ObservableLike {
  addCallback(callback: (result: ObservableResultLike) => void): void;
  removeCallback(callback: (result: ObservableResultLike) => void): void;
}

/** A histogram instrument. */
export interface HistogramLike {
  record(value: number, attributes?: Attributes): void;
}

/** Options core passes when it creates an instrument. */
export interface InstrumentOptions {
  readonly description?: string;
  readonly unit?: string;
  readonly advice?: { readonly explicitBucketBoundaries?: readonly number[] };
}

/**
 * The part of an OpenTelemetry `Meter` core calls.
 *
 * @example
 * ```ts
 * const meter: MeterLike = meterProvider.getMeter('@gatehouse/core');
 * ```
 */
export interface MeterLike {
  createHistogram(name: string, options?: InstrumentOptions): HistogramLike;
  createObservableCounter(name: string, options?: InstrumentOptions): ObservableLike;
  createObservableGauge(name: string, options?: InstrumentOptions): ObservableLike;
}

/**
 * An OpenTelemetry `MeterProvider` (the SDK's, or `metrics.getMeterProvider()` of `@opentelemetry/api`).
 *
 * @example
 * ```ts
 * import { MeterProvider } from '@opentelemetry/sdk-metrics';
 * const meterProvider: MeterProviderLike = new MeterProvider({ readers: [reader] });
 * ```
 */
export interface MeterProviderLike {
  getMeter(name: string, version?: string): MeterLike;
}

/**
 * The `@opentelemetry/api` module (or any object with its `trace` and `metrics` entry points): where
 * the global providers the application registered are found.
 *
 * @example
 * ```ts
 * import * as api from '@opentelemetry/api';
 * const otel: OpenTelemetryApiLike = api;
 * ```
 */
export interface OpenTelemetryApiLike {
  readonly trace: { getTracerProvider(): TracerProviderLike };
  /**
   * The API's proxy provider class (in every 1.x version): a new one's `getDelegate()` is the API's
   * no-op provider, which tells core, at each call, that no SDK is registered yet.
   */
  readonly ProxyTracerProvider?: new () => { getDelegate(): unknown };
  /** Absent before `@opentelemetry/api` 1.3 (no metrics then). */
  readonly metrics?: { getMeterProvider(): MeterProviderLike } | undefined;
}
