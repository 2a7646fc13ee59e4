import { SpanKind, trace } from '@opentelemetry/api';
import type { Attributes, Context, HrTime, Span, SpanContext, Tracer } from '@opentelemetry/api';
import { withIdHint } from '../id-generator.js';
import { toSpanId } from '../ids.js';
import { withSpanParent } from './span-parent-context.js';

/** A span the bridge starts, with its deterministic id offered to the SDK's IdGenerator. */
export interface SpanStart {
  readonly tracer: Tracer;
  readonly name: string;
  readonly kind: SpanKind;
  readonly parent: Context;
  readonly traceId: string;
  /** `run`, `iteration/<n>`, `chat/<n>` or `tool/<call id>`. */
  readonly role: string;
  readonly startTime: HrTime;
  readonly attributes: Attributes;
  /** Offer the trace id too (only for a run span that starts a new trace). */
  readonly rootTrace?: boolean;
}

/** Starts a span (a context in which it is active is made when a child needs one: `within`). */
export function startSpan(start: SpanStart): Span {
  const traceId = start.rootTrace === true ? start.traceId : undefined;
  return withIdHint(traceId, toSpanId(start.traceId, start.role), () =>
    start.tracer.startSpan(
      start.name,
      {
        kind: start.kind,
        startTime: start.startTime,
        attributes: start.attributes,
        root: start.rootTrace === true,
      },
      start.parent,
    ),
  );
}

/**
 * The context in which `span` (or the span of `spanContext`) is the parent, made when a child is
 * started: an open run keeps its spans, not a context per span.
 */
export function within(parent: Context, span: Span | SpanContext): Context {
  return withSpanParent(parent, 'spanContext' in span ? span : trace.wrapSpanContext(span));
}

export { SpanKind };
