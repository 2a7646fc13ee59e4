import type { ExportResult } from '@opentelemetry/core';
import { ExportResultCode } from '@opentelemetry/core';
import { AggregationTemporality, InstrumentType } from '@opentelemetry/sdk-metrics';
import type { PushMetricExporter, ResourceMetrics } from '@opentelemetry/sdk-metrics';

/** Collections waiting behind a held export at most (delta temporality: each one counts). */
const MAX_WAITING = 1000;

/**
 * Lets a metric reader keep its interval while exports are held through an outage (see
 * `RetryingMetricExporter`), which the SDK's reader cannot do: its export timeout may not exceed
 * its interval. Each collection is taken at once and exported one at a time, in order. With
 * cumulative temporality a collection waiting behind a held one is replaced by the next (it holds
 * everything the older one did); with delta temporality every one is sent. `forceFlush` waits
 * for all of them; the outcome of each reaches the exporters inside (the export watcher).
 */
export class SerialMetricExporter implements PushMetricExporter {
  private inFlight: Promise<void> | undefined;
  private readonly waiting: ResourceMetrics[] = [];
  private readonly cumulative: boolean;

  constructor(
    private readonly inner: PushMetricExporter,
    private readonly onDropped: (count: number) => void = () => undefined,
  ) {
    const select = inner.selectAggregationTemporality?.bind(inner);
    this.cumulative =
      select === undefined ||
      Object.values(InstrumentType).every(
        (type) => select(type) === AggregationTemporality.CUMULATIVE,
      );
  }

  export(metrics: ResourceMetrics, done: (result: ExportResult) => void): void {
    if (this.cumulative) this.waiting.length = 0;
    this.waiting.push(metrics);
    if (this.waiting.length > MAX_WAITING) {
      this.waiting.shift();
      this.onDropped(1);
    }
    this.inFlight ??= this.drain();
    done({ code: ExportResultCode.SUCCESS });
  }

  private async drain(): Promise<void> {
    for (let next = this.waiting.shift(); next !== undefined; next = this.waiting.shift()) {
      const batch = next;
      await new Promise<void>((resolve) => {
        try {
          this.inner.export(batch, () => resolve());
        } catch {
          resolve();
        }
      });
    }
    this.inFlight = undefined;
  }

  async forceFlush(): Promise<void> {
    while (this.inFlight !== undefined) await this.inFlight;
    await this.inner.forceFlush();
  }

  async shutdown(): Promise<void> {
    await this.forceFlush();
    await this.inner.shutdown();
  }

  selectAggregationTemporality(type: InstrumentType): AggregationTemporality {
    return this.inner.selectAggregationTemporality?.(type) ?? AggregationTemporality.CUMULATIVE;
  }
}
