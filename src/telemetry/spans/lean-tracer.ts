import {
  context as contextApi,
  diag,
  INVALID_SPAN_CONTEXT,
  SpanKind,
  trace,
  TraceFlags,
} from '@opentelemetry/api';
import type {
  Attributes,
  Context,
  Link,
  Span as ApiSpan,
  SpanContext,
  SpanOptions,
  Tracer,
} from '@opentelemetry/api';
import { cleanAttributes, isTracingSuppressed } from '@opentelemetry/core';
import type { InstrumentationScope } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import { SamplingDecision } from '@opentelemetry/sdk-trace';
import type { IdGenerator, Sampler, SamplingResult, SpanProcessor } from '@opentelemetry/sdk-trace';
import { LeanSpan } from './lean-span.js';
import { plainAttributes } from './plain-attributes.js';
import type { LeanSpanLimits } from './lean-span-start.js';

/** What every tracer of one provider shares. */
export interface LeanTracerConfig {
  readonly resource: Resource;
  /**
   * Undefined for the SDK's default, `ParentBased` with an always-on root: a span is sampled
   * unless its parent is valid and not sampled, in which case it is not recorded.
   */
  readonly sampler: Sampler | undefined;
  readonly limits: LeanSpanLimits;
  readonly idGenerator: IdGenerator;
  readonly processor: SpanProcessor;
}

const NO_LIMITS = { attributeCountLimit: Infinity, attributeValueLengthLimit: Infinity };
const SAMPLED: SamplingResult = { decision: SamplingDecision.RECORD_AND_SAMPLED };
const NOT_RECORDED: SamplingResult = { decision: SamplingDecision.NOT_RECORD };

/**
 * The trace SDK's tracer, starting `LeanSpan`s: the same sampling, ids, parents, links and
 * limits, with the span's attributes checked and copied once where they are plain values (the
 * SDK cleans them twice, checking each value with a new `WeakSet`).
 */
export class LeanTracer implements Tracer {
  constructor(
    private readonly scope: InstrumentationScope,
    private readonly config: LeanTracerConfig,
  ) {}

  startSpan(name: string, options: SpanOptions = {}, context = contextApi.active()): ApiSpan {
    const { config } = this;
    // The SDK deletes the span from the context of a root span; a context without one is kept.
    if (options.root === true && trace.getSpan(context) !== undefined)
      context = trace.deleteSpan(context);
    const parentSpan = options.root === true ? undefined : trace.getSpan(context);
    if (isTracingSuppressed(context)) {
      diag.debug('Instrumentation suppressed, returning Noop Span');
      return trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
    }
    const parentSpanContext = parentSpan?.spanContext();
    const spanId = config.idGenerator.generateSpanId();
    let validParent: SpanContext | undefined;
    let traceId: string;
    let traceState;
    if (parentSpanContext === undefined || !trace.isSpanContextValid(parentSpanContext))
      traceId = config.idGenerator.generateTraceId();
    else {
      traceId = parentSpanContext.traceId;
      traceState = parentSpanContext.traceState;
      validParent = parentSpanContext;
    }
    const kind = options.kind ?? SpanKind.INTERNAL;
    const links: Link[] = (options.links ?? []).map((link) => ({
      context: link.context,
      ...cleanAttributes(link.attributes, {
        attributeCountLimit: config.limits.attributePerLinkCountLimit,
        attributeValueLengthLimit: config.limits.attributeValueLengthLimit,
      }),
    }));
    const plain = plainAttributes(options.attributes, config.limits);
    let attributes: Attributes;
    let dropped = 0;
    if (plain !== undefined) attributes = plain;
    else {
      const cleaned = cleanAttributes(options.attributes, NO_LIMITS);
      attributes = cleaned.attributes ?? {};
      dropped = cleaned.droppedAttributesCount ?? 0;
    }
    const sampling =
      config.sampler?.shouldSample(context, traceId, name, kind, attributes, links) ??
      (validParent === undefined || (validParent.traceFlags & TraceFlags.SAMPLED) !== 0
        ? SAMPLED
        : NOT_RECORDED);
    traceState = sampling.traceState ?? traceState;
    // The SDK's shape: `traceState` present, maybe undefined.
    const spanContext = {
      traceId,
      spanId,
      traceFlags:
        sampling.decision === SamplingDecision.RECORD_AND_SAMPLED
          ? TraceFlags.SAMPLED
          : TraceFlags.NONE,
      traceState,
    } as SpanContext;
    if (sampling.decision === SamplingDecision.NOT_RECORD) {
      diag.debug('Recording is off, propagating context in a non-recording span');
      return trace.wrapSpanContext(spanContext);
    }
    // Checked within the limits already, unless the sampler added attributes.
    if (plain === undefined || hasAny(sampling.attributes)) {
      const cleaned = cleanAttributes(
        Object.assign(attributes, sampling.attributes),
        config.limits,
      );
      attributes = cleaned.attributes ?? {};
      dropped += cleaned.droppedAttributesCount ?? 0;
    }
    return new LeanSpan({
      resource: config.resource,
      scope: this.scope,
      context,
      spanContext,
      name,
      kind,
      links,
      parentSpanContext: validParent,
      attributes,
      droppedAttributesCount: dropped,
      startTime: options.startTime,
      processor: config.processor,
      limits: config.limits,
    });
  }

  startActiveSpan<F extends (span: ApiSpan) => unknown>(name: string, fn: F): ReturnType<F>;
  startActiveSpan<F extends (span: ApiSpan) => unknown>(
    name: string,
    options: SpanOptions,
    fn: F,
  ): ReturnType<F>;
  startActiveSpan<F extends (span: ApiSpan) => unknown>(
    name: string,
    options: SpanOptions,
    context: Context,
    fn: F,
  ): ReturnType<F>;
  startActiveSpan<F extends (span: ApiSpan) => unknown>(
    name: string,
    ...rest: [F] | [SpanOptions, F] | [SpanOptions, Context, F]
  ): ReturnType<F> | undefined {
    const fn = rest[rest.length - 1] as F;
    const options = rest.length > 1 ? (rest[0] as SpanOptions) : undefined;
    const parent = rest.length > 2 ? (rest[1] as Context) : contextApi.active();
    const span = this.startSpan(name, options, parent);
    return contextApi.with(
      trace.setSpan(parent, span),
      fn as (s: ApiSpan) => ReturnType<F>,
      undefined,
      span,
    );
  }
}

function hasAny(attributes: Attributes | undefined): boolean {
  if (attributes === undefined) return false;
  for (const key in attributes) if (Object.hasOwn(attributes, key)) return true;
  return false;
}
