import type { Context } from '@opentelemetry/api';
import { TraceFlags } from '@opentelemetry/api';
import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, Span, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace';

/**
 * Keeps a batch span processor's queue (`OTEL_BSP_MAX_QUEUE_SIZE`) from overflowing: a sampled span
 * that ends while the queue is full waits here, in the order spans ended, and enters the queue as
 * batches leave it. The processor never drops a span for want of room, so a source that awaits
 * each span's export never waits for one that was dropped, and a run with more spans than the
 * queue holds, whose spans end together, reaches the collector whole. What bounds the spans that
 * wait is what bounds the source: a broker source pulls nothing while the queue is over half full
 * (`load`, past 1 while spans wait), so they are the spans of messages already pulled.
 *
 * The count is the processor's own: a sampled span enters the queue as it ends, where there is
 * room, and leaves it as the batch holding it is handed to the exporter, which the processor does
 * in the same step (it waits only for resource attributes still pending, and the bridge's
 * resources have none).
 */
export class SpanQueueWatch {
  /** Sampled spans ended so far, and handed to the exporter so far (the same order). */
  private ended = 0;
  private handed = 0;
  /** Spans waiting for room, from `head` on. */
  private waiting: ReadableSpan[] = [];
  private head = 0;
  private refillDue = false;
  private inner: SpanProcessor | undefined;

  /** `onWait`: told each time spans begin to wait here. */
  constructor(
    private readonly capacity: number,
    private readonly onWait: () => void = () => undefined,
  ) {}

  /** How full the queue is: 1 when full, past 1 while spans wait for room. */
  get load(): number {
    return (this.ended - this.handed) / this.capacity;
  }

  /** Spans in the processor's queue: ended, neither handed on nor waiting. */
  private get queued(): number {
    return this.ended - this.handed - this.waitingSpans;
  }

  /** Spans waiting for room in the queue. */
  get waitingSpans(): number {
    return this.waiting.length - this.head;
  }

  /** The processor's exporter: what it is handed has left the queue, which makes room. */
  exporter(inner: SpanExporter): SpanExporter {
    return {
      export: (spans: ReadableSpan[], done: (result: ExportResult) => void) => {
        this.handed += spans.length;
        inner.export(spans, done);
        if (this.waitingSpans > 0 && !this.refillDue) {
          // Not from within the processor's own step of handing a batch on.
          this.refillDue = true;
          queueMicrotask(() => {
            this.refillDue = false;
            this.refill();
          });
        }
      },
      shutdown: () => inner.shutdown(),
      forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
    };
  }

  /** The processor: each sampled span that ends enters its queue, or waits while it is full. */
  processor(inner: SpanProcessor): SpanProcessor {
    this.inner = inner;
    return {
      onStart: (span: Span, context: Context) => inner.onStart(span, context),
      onEnd: (span: ReadableSpan) => {
        if ((span.spanContext().traceFlags & TraceFlags.SAMPLED) !== 0) {
          const full = this.queued >= this.capacity || this.waitingSpans > 0;
          this.ended += 1;
          if (full) {
            if (this.waiting.length === 0) this.onWait();
            this.waiting.push(span);
            return;
          }
        }
        inner.onEnd(span);
      },
      forceFlush: () => this.flush(inner),
      shutdown: async () => {
        await this.flush(inner);
        await inner.shutdown();
      },
    };
  }

  /**
   * Hands on every span ended before the call, those that waited included: each round of the
   * processor's flush makes room for the next. Stops early only where a round hands nothing on
   * (the processor was shut down).
   */
  private async flush(inner: SpanProcessor): Promise<void> {
    const through = this.ended;
    do {
      const before = this.handed;
      this.refill();
      await inner.forceFlush();
      if (this.handed === before) return;
    } while (this.handed < through);
  }

  /** Moves waiting spans into the queue while it has room. */
  private refill(): void {
    const inner = this.inner;
    if (inner === undefined) return;
    while (this.head < this.waiting.length && this.queued < this.capacity) {
      const span = this.waiting[this.head]!;
      this.head += 1;
      inner.onEnd(span);
    }
    if (this.head === this.waiting.length) {
      this.waiting = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.waiting.length) {
      this.waiting = this.waiting.slice(this.head);
      this.head = 0;
    }
  }
}
