import { SpanKind, trace } from '@opentelemetry/api';
import type { Attributes, Context, HrTime, Span, Tracer } from '@opentelemetry/api';
import { withIdHint } from './id-generator.js';
import { toSpanId } from './ids.js';

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

/** Starts a span and returns it with a context in which it is the active span. */
export function startSpan(start: SpanStart): { span: Span; context: Context } {
  const traceId = start.rootTrace === true ? start.traceId : undefined;
  const span = withIdHint(traceId, toSpanId(start.traceId, start.role), () =>
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
  return { span, context: trace.setSpan(start.parent, span) };
}

export { SpanKind };
