import type { ExportResult } from '@opentelemetry/core';
import { ExportResultCode } from '@opentelemetry/core';
import type {
  AggregationTemporality,
  InstrumentType,
  PushMetricExporter,
  ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import type { Outage } from './outage.js';

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
 * Retries one export (after the exporter's own retries gave up) with a growing delay, within the
 * shared `outage`'s budget: an outage shorter than the hold loses nothing, and however many exports
 * wait through one outage, they wait for it together. A permanent failure (see
 * `isPermanentFailure`) is not retried. The caller's callback hears only the last outcome, at the
 * latest when the budget is spent: an attempt still in flight then is given up (`Outage.hold`),
 * and of its late outcome only a success is taken, as the collector's return.
 */
function retrying<T>(
  attempt: (data: T, done: (result: ExportResult) => void) => void,
  data: T,
  done: (result: ExportResult) => void,
  outage: Outage,
  onRetry: (() => void) | undefined,
  pending: Set<Promise<void>>,
): void {
  // Shutting the exporter down waits for this export (see `settled`).
  let finish: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (finish = resolve));
  pending.add(held);
  let over = false;
  let pause: ReturnType<typeof setTimeout> | undefined;
  let release: () => void = () => undefined;
  const answer = done;
  done = (result) => {
    if (over) return;
    over = true;
    clearTimeout(pause);
    release();
    pending.delete(held);
    finish();
    answer(result);
  };
  const spent = outage.spent();
  if (spent !== undefined) {
    done({ code: ExportResultCode.FAILED, error: spent });
    return;
  }
  release = outage.hold(() => done({ code: ExportResultCode.FAILED, error: outage.error() }));
  let delay = FIRST_DELAY_MILLIS;
  const run = () => {
    const started = performance.now();
    attempt(data, (result) => {
      if (result.code === ExportResultCode.SUCCESS) {
        outage.succeeded();
        done(result);
        return;
      }
      // Given up already: a late failure says nothing new of the outage.
      if (over) return;
      outage.failed(started, result.error);
      const left = outage.remaining();
      if (left <= 0 || isPermanentFailure(result)) {
        done(result);
        return;
      }
      onRetry?.();
      // Not unref'd: a process waiting for its last export must not exit in the pause.
      pause = setTimeout(run, Math.min(delay, left));
      delay = Math.min(delay * 2, MAX_DELAY_MILLIS);
    });
  };
  if (!over) run();
}

/** Resolves once every export held now has its outcome. */
async function settled(pending: Set<Promise<void>>): Promise<void> {
  while (pending.size > 0) await Promise.all([...pending]);
}

/**
 * The inner exporter's flush or shutdown, not waited for once the outage's budget is spent: it
 * would wait for the attempts given up then, which its own retries may keep going for seconds.
 */
function withinBudget(outage: Outage, work: Promise<void>): Promise<void> {
  if (outage.remaining() > 0) return work;
  work.catch(() => undefined);
  return Promise.resolve();
}

/** A span exporter that holds a batch through an outage (see `Outage`). */
export class RetryingSpanExporter implements SpanExporter {
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly inner: SpanExporter,
    private readonly outage: Outage,
    private readonly onRetry?: () => void,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    retrying(
      (s, cb) => this.inner.export(s, cb),
      spans,
      done,
      this.outage,
      this.onRetry,
      this.pending,
    );
  }

  /** Waits for the exports being held through an outage (within its budget), then shuts down. */
  async shutdown(): Promise<void> {
    await settled(this.pending);
    return withinBudget(this.outage, this.inner.shutdown());
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/** A metric exporter that holds an export through an outage (see `Outage`). */
export class RetryingMetricExporter implements PushMetricExporter {
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly inner: PushMetricExporter,
    private readonly outage: Outage,
  ) {}

  export(metrics: ResourceMetrics, done: (result: ExportResult) => void): void {
    retrying(
      (m, cb) => this.inner.export(m, cb),
      metrics,
      done,
      this.outage,
      undefined,
      this.pending,
    );
  }

  async forceFlush(): Promise<void> {
    await settled(this.pending);
    return withinBudget(this.outage, this.inner.forceFlush());
  }

  async shutdown(): Promise<void> {
    await settled(this.pending);
    return withinBudget(this.outage, this.inner.shutdown());
  }

  selectAggregationTemporality(type: InstrumentType): AggregationTemporality {
    return this.inner.selectAggregationTemporality!(type);
  }
}
