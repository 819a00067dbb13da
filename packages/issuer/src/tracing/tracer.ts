/**
 * The issuer's tracer, through `@opentelemetry/api` only: the global tracer provider, whatever SDK the
 * application (or the CLI) registered. When none is registered, {@link activeTracer} says so with a
 * few property reads and nothing else is done — no span, no context switch, no attribute built.
 *
 * Child spans ({@link inChildSpan}) are only made inside a recording span: a statement run by a timer
 * (maintenance, webhook polling) or a request that is not traced starts no trace of its own.
 *
 * @module
 */
import {
  type Attributes,
  type Context,
  context,
  ProxyTracerProvider,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import { TRACING_NAMES } from './names.js';

/** The API's no-op provider: the global proxy's delegate until an SDK is registered. */
const NO_SDK = new ProxyTracerProvider().getDelegate();

let seenProvider: TracerProvider | undefined;
let seenTracer: Tracer | undefined;

/**
 * The issuer's tracer, or `undefined` while no SDK is registered (a span would do nothing).
 *
 * @example
 * ```ts
 * const tracer = activeTracer();
 * if (tracer !== undefined) tracer.startSpan('work').end();
 * ```
 */
export function activeTracer(): Tracer | undefined {
  const provider = trace.getTracerProvider() as TracerProvider & { getDelegate?: () => unknown };
  if (provider.getDelegate?.() === NO_SDK) return undefined;
  if (provider !== seenProvider) {
    seenProvider = provider;
    seenTracer = provider.getTracer(TRACING_NAMES.scope);
  }
  return seenTracer;
}

/**
 * The recording span of the active context and the tracer to make its children with, or `undefined`.
 *
 * @example
 * ```ts
 * const parent = recordingParent();
 * ```
 */
export function recordingParent(): { tracer: Tracer; context: Context } | undefined {
  const tracer = activeTracer();
  if (tracer === undefined) return undefined;
  const active = context.active();
  return trace.getSpan(active)?.isRecording() ? { tracer, context: active } : undefined;
}

/**
 * Mark `span` as failed by `error`: status ERROR and `error.type` (the class name only: a message may
 * hold a value from the request).
 *
 * @example
 * ```ts
 * failed(span, new TypeError('…')); // error.type = 'TypeError'
 * ```
 */
export function failed(span: Span, error: unknown): void {
  const name = error instanceof Error ? error.name : undefined;
  span.setAttribute(
    TRACING_NAMES.attributes.errorType,
    typeof name === 'string' && name.length > 0 && name.length <= 64 ? name : '_OTHER',
  );
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/**
 * Run `fn` in a child span of the active recording span (made active for `fn`, so what it does is
 * under it), or just run it when there is none. The span ends when `fn`'s promise settles; a rejection
 * marks it failed unless `expected(error)` says it is an answer, not a fault.
 *
 * @example
 * ```ts
 * const details = await inChildSpan('oidc.interaction.details', {}, () => provider.interactionDetails(req, res));
 * ```
 */
export function inChildSpan<T>(
  name: string,
  attributes: Attributes,
  fn: (span: Span | undefined) => Promise<T>,
  options: { kind?: SpanKind; expected?: (error: unknown) => boolean } = {},
): Promise<T> {
  const parent = recordingParent();
  if (parent === undefined) return fn(undefined);
  const span = parent.tracer.startSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes },
    parent.context,
  );
  let result: Promise<T>;
  try {
    result = context.with(trace.setSpan(parent.context, span), fn, undefined, span);
  } catch (error) {
    failed(span, error);
    span.end();
    throw error;
  }
  return result.then(
    (value) => {
      span.end();
      return value;
    },
    (error: unknown) => {
      if (options.expected?.(error) !== true) failed(span, error);
      span.end();
      throw error;
    },
  );
}
