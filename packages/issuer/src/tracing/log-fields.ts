/**
 * The trace ids a log line or an audit event carries, so a line, a trace and an event join up:
 * `trace_id` and `span_id` of the active span (lower-case hex, as W3C Trace Context writes them), or
 * nothing when no span is active or no SDK is registered.
 *
 * @module
 */
import { context, isSpanContextValid, type Span, trace } from '@opentelemetry/api';

/**
 * The ids of a span as log fields.
 *
 * @example
 * ```ts
 * log.info({ event: 'http', ...traceFields(span) }); // {"trace_id":"4bf9…","span_id":"00f0…"}
 * ```
 */
export interface TraceFields {
  readonly trace_id: string;
  readonly span_id: string;
}

/**
 * `span`'s ids (the active span's when `span` is not given), or `{}` when there is none.
 *
 * @example
 * ```ts
 * const fields = traceFields(); // {} outside a traced request
 * ```
 */
export function traceFields(span?: Span): TraceFields | Record<string, never> {
  const spanContext = (span ?? trace.getSpan(context.active()))?.spanContext();
  // A new object each time: pino merges a line's fields into what its mixin returns.
  if (spanContext === undefined || !isSpanContextValid(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}

/**
 * The trace id of the active span, or `null` (audit events store it).
 *
 * @example
 * ```ts
 * const traceId = activeTraceId(); // '4bf92f3577b34da6a3ce929d0e0e4736' in a traced request
 * ```
 */
export function activeTraceId(): string | null {
  const spanContext = trace.getSpan(context.active())?.spanContext();
  return spanContext !== undefined && isSpanContextValid(spanContext) ? spanContext.traceId : null;
}
