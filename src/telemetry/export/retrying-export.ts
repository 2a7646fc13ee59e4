import type { ExportResult } from '@opentelemetry/core';
import { ExportResultCode } from '@opentelemetry/core';
import type {
  AggregationTemporality,
  InstrumentType,
  PushMetricExporter,
  ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';

const FIRST_DELAY_MILLIS = 250;
const MAX_DELAY_MILLIS = 5000;

/**
 * Whether a failed export can never succeed as sent: the collector refused it with a 4xx other
 * than 408 (timeout) and 429 (too many requests), as the Collector's own retry stage decides.
 */
export function isPermanentFailure(result: ExportResult): boolean {
  const code = (result.error as { code?: unknown } | undefined)?.code;
  return typeof code === 'number' && code >= 400 && code < 500 && code !== 408 && code !== 429;
}

/**
 * Retries one export (after the exporter's own retries gave up) with a growing delay, for at most
 * `holdMillis` from its first attempt: an outage shorter than that loses nothing. A permanent
 * failure (see `isPermanentFailure`) is not retried. The caller's callback hears only the last
 * outcome.
 */
function retrying<T>(
  attempt: (data: T, done: (result: ExportResult) => void) => void,
  data: T,
  done: (result: ExportResult) => void,
  holdMillis: number,
  onRetry: (() => void) | undefined,
): void {
  const started = performance.now();
  let delay = FIRST_DELAY_MILLIS;
  const run = () =>
    attempt(data, (result) => {
      const left = holdMillis - (performance.now() - started);
      if (result.code === ExportResultCode.SUCCESS || left <= 0 || isPermanentFailure(result)) {
        done(result);
        return;
      }
      onRetry?.();
      setTimeout(run, Math.min(delay, left)).unref();
      delay = Math.min(delay * 2, MAX_DELAY_MILLIS);
    });
  run();
}

/** A span exporter that holds a batch through an outage of up to `holdMillis`. */
export class RetryingSpanExporter implements SpanExporter {
  constructor(
    private readonly inner: SpanExporter,
    private readonly holdMillis: number,
    private readonly onRetry?: () => void,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    retrying((s, cb) => this.inner.export(s, cb), spans, done, this.holdMillis, this.onRetry);
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/** A metric exporter that holds an export through an outage of up to `holdMillis`. */
export class RetryingMetricExporter implements PushMetricExporter {
  constructor(
    private readonly inner: PushMetricExporter,
    private readonly holdMillis: number,
  ) {}

  export(metrics: ResourceMetrics, done: (result: ExportResult) => void): void {
    retrying((m, cb) => this.inner.export(m, cb), metrics, done, this.holdMillis, undefined);
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  selectAggregationTemporality(type: InstrumentType): AggregationTemporality {
    return this.inner.selectAggregationTemporality!(type);
  }
}
