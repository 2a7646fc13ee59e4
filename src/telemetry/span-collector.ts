import type { HrTime, SpanStatusCode } from '@opentelemetry/api';
import type { ExportResult } from '@opentelemetry/core';
import { ExportResultCode } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';

/** A finished span, reduced to what a terminal view shows. */
export interface CollectedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly name: string;
  readonly startTime: HrTime;
  readonly endTime: HrTime;
  readonly status: { readonly code: SpanStatusCode; readonly message?: string | undefined };
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly events: readonly {
    readonly name: string;
    readonly attributes: Readonly<Record<string, unknown>>;
  }[];
}

/**
 * A span exporter that keeps the spans of the first `maxTraces` traces in memory (for the
 * terminal view) and counts the rest, so memory stays bounded on large inputs.
 */
export class SpanCollector implements SpanExporter {
  private readonly traces = new Map<string, CollectedSpan[]>();
  private skippedSpans = 0;

  constructor(private readonly maxTraces: number) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    for (const span of spans) {
      const traceId = span.spanContext().traceId;
      let list = this.traces.get(traceId);
      if (list === undefined) {
        if (this.traces.size >= this.maxTraces) {
          this.skippedSpans += 1;
          continue;
        }
        list = [];
        this.traces.set(traceId, list);
      }
      list.push({
        traceId,
        spanId: span.spanContext().spanId,
        parentSpanId: span.parentSpanContext?.spanId,
        name: span.name,
        startTime: span.startTime,
        endTime: span.endTime,
        status: span.status,
        attributes: span.attributes,
        events: span.events.map((e) => ({ name: e.name, attributes: e.attributes ?? {} })),
      });
    }
    done({ code: ExportResultCode.SUCCESS });
  }

  /** Spans of the kept traces, by trace id, in the order the traces first ended a span. */
  collected(): ReadonlyMap<string, readonly CollectedSpan[]> {
    return this.traces;
  }

  get skipped(): number {
    return this.skippedSpans;
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
}
