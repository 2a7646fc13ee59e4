import type {
  Attributes,
  Context,
  Link,
  SpanContext,
  SpanKind,
  TimeInput,
} from '@opentelemetry/api';
import type { InstrumentationScope } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { SpanLimits, SpanProcessor } from '@opentelemetry/sdk-trace';

/** The limits a span applies, every one set (the provider's defaults filled in). */
export type LeanSpanLimits = Required<SpanLimits>;

export interface LeanSpanStart {
  readonly resource: Resource;
  readonly scope: InstrumentationScope;
  readonly context: Context;
  readonly spanContext: SpanContext;
  readonly name: string;
  readonly kind: SpanKind;
  readonly links: Link[];
  readonly parentSpanContext: SpanContext | undefined;
  /** Already cleaned by the tracer, within the limits. */
  readonly attributes: Attributes;
  readonly droppedAttributesCount: number;
  readonly startTime: TimeInput | undefined;
  readonly processor: SpanProcessor;
  readonly limits: LeanSpanLimits;
}
