// A reader keeps its interval while an export is held: collections queue behind it, in order.
import type { ExportResult } from '@opentelemetry/core';
import { ExportResultCode } from '@opentelemetry/core';
import { AggregationTemporality } from '@opentelemetry/sdk-metrics';
import type { PushMetricExporter, ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { describe, expect, it } from 'vitest';
import { SerialMetricExporter } from '../../src/telemetry/export/serial-metric-exporter.js';

/** An exporter whose exports complete only when the test says so. */
class HeldExporter implements PushMetricExporter {
  readonly started: ResourceMetrics[] = [];
  private readonly pending: ((result: ExportResult) => void)[] = [];
  constructor(private readonly temporality: AggregationTemporality) {}
  export(metrics: ResourceMetrics, done: (result: ExportResult) => void): void {
    this.started.push(metrics);
    this.pending.push(done);
  }
  release(): void {
    this.pending.shift()?.({ code: ExportResultCode.SUCCESS });
  }
  get inFlight(): number {
    return this.pending.length;
  }
  forceFlush = () => Promise.resolve();
  shutdown = () => Promise.resolve();
  selectAggregationTemporality = () => this.temporality;
}

const collection = (n: number) =>
  ({ resource: { n }, scopeMetrics: [] }) as unknown as ResourceMetrics;
const tick = () => new Promise((resolve) => setImmediate(resolve));

function exportNow(exporter: PushMetricExporter, metrics: ResourceMetrics): ExportResult {
  let answer: ExportResult | undefined;
  exporter.export(metrics, (result) => (answer = result));
  expect(answer).toBeDefined();
  return answer!;
}

describe('SerialMetricExporter', () => {
  it('answers the reader at once and sends one collection at a time, the latest (cumulative)', async () => {
    const inner = new HeldExporter(AggregationTemporality.CUMULATIVE);
    const serial = new SerialMetricExporter(inner);
    for (const n of [1, 2, 3, 4]) expect(exportNow(serial, collection(n)).code).toBe(0);
    await tick();
    expect(inner.inFlight).toBe(1);
    expect(inner.started.map((m) => (m.resource as unknown as { n: number }).n)).toEqual([1]);
    let flushed = false;
    const flush = serial.forceFlush().then(() => (flushed = true));
    inner.release();
    await tick();
    // 2 and 3 were superseded by 4, which holds all they did.
    expect(inner.started.map((m) => (m.resource as unknown as { n: number }).n)).toEqual([1, 4]);
    expect(flushed).toBe(false);
    inner.release();
    await flush;
    expect(flushed).toBe(true);
  });

  it('sends every collection in order with delta temporality', async () => {
    const inner = new HeldExporter(AggregationTemporality.DELTA);
    const serial = new SerialMetricExporter(inner);
    for (const n of [1, 2, 3]) exportNow(serial, collection(n));
    const flush = serial.forceFlush();
    for (let i = 0; i < 3; i += 1) {
      await tick();
      inner.release();
    }
    await flush;
    expect(inner.started.map((m) => (m.resource as unknown as { n: number }).n)).toEqual([1, 2, 3]);
  });
});
