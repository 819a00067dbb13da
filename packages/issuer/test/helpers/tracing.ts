/**
 * Tracing for a test file: an in-memory exporter behind the global tracer provider, the
 * AsyncLocalStorage context manager and the W3C Trace Context propagator (@opentelemetry/core) — what
 * an application registers, in memory. `stop()` unregisters all of it.
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';

/** W3C Trace Context (`traceparent`, `tracestate`). */
const w3cPropagator = new W3CTraceContextPropagator();

/** The registered SDK of a test file. */
export interface Tracing {
  /** Every span finished so far. */
  spans(): Promise<ReadableSpan[]>;
  /** Forget the spans finished so far. */
  reset(): void;
  stop(): Promise<void>;
}

/** Register an SDK with an in-memory exporter as the global tracer provider. */
export function startTracing(): Tracing {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  trace.setGlobalTracerProvider(provider);
  propagation.setGlobalPropagator(w3cPropagator);
  return {
    async spans() {
      await provider.forceFlush();
      return exporter.getFinishedSpans();
    },
    reset: () => exporter.reset(),
    async stop() {
      trace.disable();
      propagation.disable();
      context.disable();
      contextManager.disable();
      await provider.shutdown();
    },
  };
}

/** The spans under `root` (children, their children…), depth first. */
export function descendants(all: readonly ReadableSpan[], root: ReadableSpan): ReadableSpan[] {
  const out: ReadableSpan[] = [];
  const visit = (parent: ReadableSpan) => {
    for (const span of all)
      if (span.parentSpanContext?.spanId === parent.spanContext().spanId) {
        out.push(span);
        visit(span);
      }
  };
  visit(root);
  return out;
}

/** The direct children of `parent`. */
export function childrenOf(all: readonly ReadableSpan[], parent: ReadableSpan): ReadableSpan[] {
  return all.filter((span) => span.parentSpanContext?.spanId === parent.spanContext().spanId);
}

/** The tree under `root` as indented names, for failure messages. */
export function tree(all: readonly ReadableSpan[], root: ReadableSpan, depth = 0): string {
  return [
    `${'  '.repeat(depth)}${root.name}`,
    ...childrenOf(all, root).map((child) => tree(all, child, depth + 1)),
  ].join('\n');
}

/** Every literal of `secrets` found in any span's name, attributes or events. */
export function leaks(all: readonly ReadableSpan[], secrets: readonly string[]): string[] {
  const text = JSON.stringify(
    all.map((span) => ({ name: span.name, attributes: span.attributes, events: span.events })),
  );
  return secrets.filter((secret) => secret.length >= 6 && text.includes(secret));
}
