/**
 * Tracing for a test file: an in-memory exporter behind the global tracer provider, the
 * AsyncLocalStorage context manager and a W3C Trace Context propagator (written here: the API has no
 * propagator of its own, and the SDK's lives in a package the issuer does not depend on) — what an
 * application registers, in memory. `stop()` unregisters all of it.
 */
import {
  type Context,
  context,
  propagation,
  type TextMapGetter,
  type TextMapPropagator,
  type TextMapSetter,
  TraceFlags,
  trace,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** W3C Trace Context (`traceparent` only; `tracestate` is not needed here). */
export const w3cPropagator: TextMapPropagator = {
  inject(ctx: Context, carrier: unknown, setter: TextMapSetter) {
    const span = trace.getSpanContext(ctx);
    if (span === undefined) return;
    setter.set(carrier, 'traceparent', `00-${span.traceId}-${span.spanId}-0${span.traceFlags & 1}`);
  },
  extract(ctx: Context, carrier: unknown, getter: TextMapGetter) {
    const header = getter.get(carrier, 'traceparent');
    const match = TRACEPARENT.exec(Array.isArray(header) ? (header[0] ?? '') : (header ?? ''));
    if (match === null) return ctx;
    return trace.setSpanContext(ctx, {
      traceId: match[1]!,
      spanId: match[2]!,
      traceFlags: Number.parseInt(match[3]!, 16) & TraceFlags.SAMPLED,
      isRemote: true,
    });
  },
  fields: () => ['traceparent'],
};

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
