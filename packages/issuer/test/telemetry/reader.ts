/**
 * An in-memory metric reader for the telemetry tests: a real SDK `MeterProvider` whose reader collects
 * on demand, and sums of the data points of one metric whose attributes include the given ones.
 */
import type { Attributes } from '@opentelemetry/api';
import { type DataPoint, type Histogram, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';

/** A reader that collects only when asked. */
export class MemoryReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

/** A meter provider and its reader. */
export function memoryMetrics(): { provider: MeterProvider; reader: MemoryReader } {
  const reader = new MemoryReader();
  return { provider: new MeterProvider({ readers: [reader] }), reader };
}

const matches = (attributes: Attributes, wanted: Attributes) =>
  Object.entries(wanted).every(([key, value]) => attributes[key] === value);

/** Every data point of metric `name` now. */
export async function points(reader: MetricReader, name: string): Promise<DataPoint<unknown>[]> {
  const { resourceMetrics, errors } = await reader.collect();
  if (errors.length > 0) throw errors[0];
  return resourceMetrics.scopeMetrics
    .flatMap((scope) => scope.metrics)
    .filter((metric) => metric.descriptor.name === name)
    .flatMap((metric) => metric.dataPoints as DataPoint<unknown>[]);
}

/** The sum of metric `name` (a counter's values, a histogram's counts) over points with `wanted` attributes. */
export async function total(reader: MetricReader, name: string, wanted: Attributes = {}): Promise<number> {
  let sum = 0;
  for (const point of await points(reader, name)) {
    if (!matches(point.attributes, wanted)) continue;
    const value = point.value as number | Histogram;
    sum += typeof value === 'number' ? value : value.count;
  }
  return sum;
}
