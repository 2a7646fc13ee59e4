import type { Tracer } from '@opentelemetry/api';
import { defaultResource } from '@opentelemetry/resources';
import { RandomIdGenerator, TracerProvider } from '@opentelemetry/sdk-trace';
import type { SpanProcessor, TracerProviderOptions } from '@opentelemetry/sdk-trace';
import type { LeanSpanLimits } from './lean-span-start.js';
import { LeanTracer } from './lean-tracer.js';
import type { LeanTracerConfig } from './lean-tracer.js';

/**
 * The trace SDK's provider (its processors, flush and shutdown), whose tracers start
 * `LeanSpan`s. Its flush waits as long as an export may be held through an outage (the SDK's
 * gives up after 30 s while the batch it waits for is still being retried).
 */
export class LeanTracerProvider extends TracerProvider {
  private readonly config: LeanTracerConfig;
  private readonly tracers = new Map<string, Tracer>();

  constructor(
    options: TracerProviderOptions,
    private readonly flushTimeoutMillis?: number,
  ) {
    super(options);
    const limits = options.spanLimits;
    this.config = {
      resource: options.resource ?? defaultResource(),
      // Undefined: the SDK's default (ParentBased, root always on), decided by the tracer itself.
      sampler: options.sampler,
      limits: {
        attributeCountLimit: limits?.attributeCountLimit ?? 128,
        attributeValueLengthLimit: limits?.attributeValueLengthLimit ?? Infinity,
        eventCountLimit: limits?.eventCountLimit ?? 128,
        linkCountLimit: limits?.linkCountLimit ?? 128,
        attributePerEventCountLimit: limits?.attributePerEventCountLimit ?? 128,
        attributePerLinkCountLimit: limits?.attributePerLinkCountLimit ?? 128,
      } satisfies LeanSpanLimits,
      idGenerator: options.idGenerator ?? new RandomIdGenerator(),
      processor: fanOut(options.spanProcessors ?? []),
    };
  }

  override getTracer(name: string, version?: string, options?: { schemaUrl?: string }): Tracer {
    const key = `${name}@${version ?? ''}:${options?.schemaUrl ?? ''}`;
    let tracer = this.tracers.get(key);
    if (tracer === undefined) {
      tracer = new LeanTracer(
        {
          name,
          ...(version === undefined ? {} : { version }),
          ...(options?.schemaUrl === undefined ? {} : { schemaUrl: options.schemaUrl }),
        },
        this.config,
      );
      this.tracers.set(key, tracer);
    }
    return tracer;
  }

  override forceFlush(options?: { timeoutMillis?: number }): Promise<void> {
    const timeoutMillis = options?.timeoutMillis ?? this.flushTimeoutMillis;
    return super.forceFlush(timeoutMillis === undefined ? options : { timeoutMillis });
  }
}

/** Every processor told of each start and end, in order (flush and shutdown are the SDK's). */
function fanOut(processors: readonly SpanProcessor[]): SpanProcessor {
  const ending = processors.filter((p) => p.onEnding !== undefined);
  return {
    onStart: (span, context) => {
      for (const p of processors) p.onStart(span, context);
    },
    onEnding: (span) => {
      for (const p of ending) p.onEnding?.(span);
    },
    onEnd: (span) => {
      for (const p of processors) p.onEnd(span);
    },
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
}
