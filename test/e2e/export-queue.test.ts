// Beyond the span queue (OTEL_BSP_MAX_QUEUE_SIZE) spans are dropped by the SDK: never silently.
// They are counted in the SDK's own otel.sdk.processor.span.processed{error.type="queue_full"},
// exported with the bridge's metrics, and reported on stderr.
import { describe, expect, it } from 'vitest';
import { createDemoLines } from '../../src/sources/demo-runs.js';
import { runCli } from '../helpers/cli.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';

describe('span queue overflow', () => {
  it('counts and reports the spans it had to drop', async () => {
    const receiver = await startOtlpReceiver();
    try {
      const lines = createDemoLines(300, Date.UTC(2025, 5, 1, 12));
      const result = await runCli(
        ['ingest', '-'],
        {
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_BSP_MAX_QUEUE_SIZE: '16',
          OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '8',
        },
        `${lines.join('\n')}\n`,
      );
      // Dropped spans are undelivered data: exit 3, and how many is said.
      expect(result.code).toBe(3);
      const dropped = receiver.metrics
        .filter((m) => m.name === 'otel.sdk.processor.span.processed')
        .flatMap((m) => m.points)
        .filter((p) => p.attributes['error.type'] === 'queue_full')
        .reduce((total, p) => total + (p.value as number), 0);
      expect(dropped).toBeGreaterThan(0);
      // What arrived and what was dropped add up to every span the runs made.
      const made = receiver.metrics
        .filter((m) => m.name === 'otel.sdk.processor.span.processed')
        .flatMap((m) => m.points)
        .reduce((total, p) => total + (p.value as number), 0);
      expect(made - dropped).toBe(receiver.spans.length);
      expect(result.stderr).toMatch(/export queue full: Dropped \d+ spans because maxQueueSize/);
      expect(result.stderr).toContain(`not delivered: ${dropped} of ${made} spans`);
    } finally {
      await receiver.close();
    }
  });
});
