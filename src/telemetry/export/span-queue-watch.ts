import type { Context } from '@opentelemetry/api';
import { TraceFlags } from '@opentelemetry/api';
import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, Span, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace';

/**
 * Counts the spans a batch span processor holds in its queue, so as to tell of each span it drops
 * because the queue is full (`OTEL_BSP_MAX_QUEUE_SIZE`), as it drops it: a source that awaits the
 * span's export hears that it failed, and has its run redelivered, where it would otherwise wait
 * for it for good. The processor still drops the span, counts it and says so.
 *
 * The count is the processor's own: a sampled span enters the queue as it ends, where there is
 * room, and leaves it as the batch holding it is handed to the exporter, which the processor does
 * in the same step (it waits only for resource attributes still pending, and the bridge's
 * resources have none).
 */
export class SpanQueueWatch {
  private queued = 0;
  private full: ReadableSpan[] = [];

  /** `onFull`: the spans dropped since the last call, in one call per turn of the event loop. */
  constructor(
    private readonly capacity: number,
    private readonly onFull: (spans: readonly ReadableSpan[]) => void,
  ) {}

  /** How full the queue is, from 0 to 1. */
  get load(): number {
    return this.queued / this.capacity;
  }

  /** The processor's exporter: what it is handed has left the queue. */
  exporter(inner: SpanExporter): SpanExporter {
    return {
      export: (spans: ReadableSpan[], done: (result: ExportResult) => void) => {
        this.queued -= spans.length;
        inner.export(spans, done);
      },
      shutdown: () => inner.shutdown(),
      forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
    };
  }

  /** The processor: each sampled span that ends enters its queue, or is dropped when it is full. */
  processor(inner: SpanProcessor): SpanProcessor {
    return {
      onStart: (span: Span, context: Context) => inner.onStart(span, context),
      onEnd: (span: ReadableSpan) => {
        if ((span.spanContext().traceFlags & TraceFlags.SAMPLED) !== 0) {
          if (this.queued < this.capacity) this.queued += 1;
          else this.dropped(span);
        }
        inner.onEnd(span);
      },
      forceFlush: () => inner.forceFlush(),
      shutdown: () => inner.shutdown(),
    };
  }

  private dropped(span: ReadableSpan): void {
    if (this.full.length === 0)
      queueMicrotask(() => {
        const spans = this.full;
        this.full = [];
        this.onFull(spans);
      });
    this.full.push(span);
  }
}
