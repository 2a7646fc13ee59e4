import type { ExportResult } from '@opentelemetry/core';
import { ExportResultCode } from '@opentelemetry/core';
import { AggregationTemporality } from '@opentelemetry/sdk-metrics';
import type {
  InstrumentType,
  PushMetricExporter,
  ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { ExportOrder } from './export-order.js';

/**
 * Span ids by trace id: a span is named, so that one exported twice (a run rebuilt after a failed
 * export) counts once, and each run of a trace (a parent and its sub-agents) finds its own.
 */
export type SpansByTrace = ReadonlyMap<string, readonly string[]>;

/** Told what reached the collector, so a source can acknowledge what is durable. */
export interface ExportListener {
  /** Spans exported successfully. */
  spansExported(spans: SpansByTrace): void;
  /**
   * Spans that run-outcome sampling dropped: they will never be exported, and are settled as if
   * they had been (a source may acknowledge their run).
   */
  spansSampledOut?(spans: SpansByTrace): void;
  /**
   * An export of these spans failed for good (after the exporter's own retries). `superseded`:
   * the collector answers, and the spans failed all the same: an export begun after this one has
   * succeeded meanwhile (a request that hung until its timeout).
   */
  spansFailed(spans: SpansByTrace, error: Error | undefined, superseded?: boolean): void;
  /**
   * Spans ended while the span export queue (`OTEL_BSP_MAX_QUEUE_SIZE`, `capacity`) was full: they
   * wait in the bridge for room, in order, and none is dropped. Told each time spans begin to wait.
   */
  spansWaiting?(capacity: number): void;
  /** A metric collection taken at `collectedAtMillis` (epoch ms) was exported successfully. */
  metricsExported(collectedAtMillis: number): void;
  /** A metric export failed; `superseded` as for spans. */
  metricsFailed(error: Error | undefined, superseded?: boolean): void;
  /** An export failed and is being retried (the collector is refusing or not answering). */
  exportRetrying?(): void;
  /** A collector outage began: the first export of it failed with `error` (said once per outage). */
  outageStarted?(error: Error | undefined): void;
  /** Nothing answered at the collector's address when probed at start (`problem` says what). */
  collectorUnreachable?(problem: string): void;
}

/** Spans named per trace id, as an `ExportListener` is told of them. */
export function spansByTrace(spans: readonly ReadableSpan[]): Map<string, string[]> {
  const byTrace = new Map<string, string[]>();
  for (const span of spans) {
    const { traceId, spanId } = span.spanContext();
    const ids = byTrace.get(traceId);
    if (ids === undefined) byTrace.set(traceId, [spanId]);
    else ids.push(spanId);
  }
  return byTrace;
}

/** Wraps a span exporter and reports the outcome of every batch. */
export class WatchedSpanExporter implements SpanExporter {
  private readonly order = new ExportOrder();

  constructor(
    private readonly inner: SpanExporter,
    private readonly listener: ExportListener,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    const number = this.order.begin();
    this.inner.export(spans, (result) => {
      if (result.code === ExportResultCode.SUCCESS) {
        this.order.succeeded(number);
        this.listener.spansExported(spansByTrace(spans));
      } else {
        this.listener.spansFailed(spansByTrace(spans), result.error, this.order.superseded(number));
      }
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/** Wraps a metric exporter and reports each export with the time its data was collected. */
export class WatchedMetricExporter implements PushMetricExporter {
  private readonly order = new ExportOrder();

  constructor(
    private readonly inner: PushMetricExporter,
    private readonly listener: ExportListener,
  ) {}

  export(metrics: ResourceMetrics, done: (result: ExportResult) => void): void {
    let collectedAt = 0;
    for (const scope of metrics.scopeMetrics) {
      for (const metric of scope.metrics) {
        for (const point of metric.dataPoints) {
          collectedAt = Math.max(collectedAt, point.endTime[0] * 1000 + point.endTime[1] / 1e6);
        }
      }
    }
    const number = this.order.begin();
    this.inner.export(metrics, (result) => {
      if (result.code === ExportResultCode.SUCCESS) {
        this.order.succeeded(number);
        this.listener.metricsExported(collectedAt);
      } else this.listener.metricsFailed(result.error, this.order.superseded(number));
      done(result);
    });
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  selectAggregationTemporality(type: InstrumentType): AggregationTemporality {
    return this.inner.selectAggregationTemporality?.(type) ?? AggregationTemporality.CUMULATIVE;
  }
}
