// A span queue (OTEL_BSP_MAX_QUEUE_SIZE) far smaller than what `ingest` reads between two flushes.
// For the destination its input waits on, spans past the queue wait in the bridge for room: none
// is dropped, every span arrives, and reading waits on its flushes as before. An extra destination,
// which nothing waits for, drops what does not fit, never silently: the SDK's own
// otel.sdk.processor.span.processed{error.type="queue_full"} counts it, stderr says it, and the
// exit code is 3. Queue and batch sizes and the number of runs are drawn at random.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createDemoLines } from '../../src/sources/demo-runs.js';
import { runCli } from '../helpers/cli.js';
import { createHarness } from '../helpers/harness.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import type { OtlpReceiver } from '../helpers/otlp-receiver.js';

const setting = fc
  .record({
    queue: fc.integer({ min: 4, max: 32 }),
    batch: fc.integer({ min: 1, max: 16 }),
    runs: fc.integer({ min: 150, max: 300 }),
  })
  .map((s) => ({ ...s, batch: Math.min(s.batch, s.queue) }));

function drawn() {
  const seed = Date.now() % 1_000_000;
  const [s] = fc.sample(setting, { numRuns: 1, seed });
  return { ...s!, what: `seed ${seed}: ${JSON.stringify(s)}` };
}

/** The SDK's count of spans its processors took, and of those dropped for a full queue. */
function processed(receiver: OtlpReceiver): { all: number; dropped: number } {
  const points = receiver.metrics
    .filter((m) => m.name === 'otel.sdk.processor.span.processed')
    .flatMap((m) => m.points);
  const sum = (ps: typeof points) => ps.reduce((total, p) => total + (p.value as number), 0);
  return {
    all: sum(points),
    dropped: sum(points.filter((p) => p.attributes['error.type'] === 'queue_full')),
  };
}

async function spansOf(lines: readonly string[]): Promise<number> {
  const straight = createHarness();
  straight.feed(lines.join('\n'));
  await straight.sink.shutdown();
  return straight.spans().length;
}

describe('a span queue smaller than a flush', () => {
  it('holds the spans past it for the destination the input waits on, and delivers every one', async () => {
    const { queue, batch, runs, what } = drawn();
    const receiver = await startOtlpReceiver();
    try {
      const lines = createDemoLines(runs, Date.UTC(2025, 5, 1, 12));
      const result = await runCli(
        ['ingest', '-'],
        {
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_BSP_MAX_QUEUE_SIZE: String(queue),
          OTEL_BSP_MAX_EXPORT_BATCH_SIZE: String(batch),
        },
        `${lines.join('\n')}\n`,
      );
      const spans = await spansOf(lines);
      expect(result.code, `${what}: ${result.stderr}`).toBe(0);
      expect(new Set(receiver.spans.map((s) => s.spanId)).size, what).toBe(spans);
      expect(result.stderr, what).not.toMatch(/Dropped \d+ spans/);
      expect(result.stdout, what).toContain(`delivered ${spans} of ${spans} spans`);
      // The processor took every span, and dropped none.
      expect(processed(receiver), what).toEqual({ all: spans, dropped: 0 });
    } finally {
      await receiver.close();
    }
  });

  it('drops what does not fit for an extra destination, counts it, says it and exits 3', async () => {
    const { queue, batch, runs, what } = drawn();
    const primary = await startOtlpReceiver();
    const second = await startOtlpReceiver();
    try {
      const lines = createDemoLines(runs, Date.UTC(2025, 5, 1, 12));
      const result = await runCli(
        ['ingest', '-'],
        {
          OTEL_EXPORTER_OTLP_ENDPOINT: primary.url,
          OTEL_BSP_MAX_QUEUE_SIZE: String(queue),
          OTEL_BSP_MAX_EXPORT_BATCH_SIZE: String(batch),
          AGENT_OTEL_BRIDGE_DESTINATIONS: JSON.stringify([
            { name: 'second', endpoint: second.url },
          ]),
        },
        `${lines.join('\n')}\n`,
      );
      const spans = await spansOf(lines);
      // The destination the input waits on has every span.
      expect(new Set(primary.spans.map((s) => s.spanId)).size, what).toBe(spans);
      const { all, dropped } = processed(primary);
      expect(dropped, what).toBeGreaterThan(0);
      // Both processors took every span; what the second dropped is what it lacks.
      expect(all, what).toBe(2 * spans);
      const atSecond = new Set(second.spans.map((s) => s.spanId)).size;
      expect(atSecond, what).toBe(spans - dropped);
      expect(result.code, what).toBe(3);
      expect(result.stderr, what).toMatch(
        /export queue full: Dropped \d+ spans because maxQueueSize/,
      );
      expect(result.stdout, what).toContain(`delivered to second: ${atSecond} of ${spans} spans`);
    } finally {
      await primary.close();
      await second.close();
    }
  });
});
