// The span export queue (OTEL_BSP_MAX_QUEUE_SIZE) filling under a broker source, on the real
// NATS JetStream and Redis of this machine: a slow collector, a small queue, runs ending in bursts.
// Spans past a full queue wait in the bridge for room (none is dropped, so no run has to be
// redelivered for it), and the source pauses while the queue is over half full, so that every run
// reaches the collector whole and every message is acknowledged. Queue size, batch size, the
// collector's delay and the number of runs are drawn at random (the seed is printed on failure).
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createDemoLines } from '../../src/sources/demo-runs.js';
import { natsTestBroker, redisTestBroker } from '../helpers/test-brokers.js';
import { startCli } from '../helpers/cli.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { createHarness } from '../helpers/harness.js';
import { waitFor } from '../helpers/wire-spans.js';

const setting = fc.record({
  queue: fc.integer({ min: 32, max: 96 }),
  batch: fc.constantFrom(4, 8, 16),
  delayMillis: fc.integer({ min: 50, max: 200 }),
  runs: fc.integer({ min: 25, max: 40 }),
});

describe.each([
  ['NATS JetStream', () => natsTestBroker('AOB_QUEUE')],
  ['Redis Streams', () => redisTestBroker('aob:queue')],
] as const)('a span queue too small, from %s', (_name, makeBroker) => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it('holds the spans past the queue until every run is whole and every message acknowledged', async () => {
    const seed = Date.now() % 1_000_000;
    const [s] = fc.sample(setting, { numRuns: 1, seed });
    const { queue, batch, delayMillis, runs } = s!;
    const what = `seed ${seed}: queue ${queue}, batch ${batch}, delay ${delayMillis} ms, ${runs} runs`;
    const receiver = await startOtlpReceiver();
    cleanups.push(() => receiver.close());
    receiver.delayMillis = delayMillis;
    const broker = makeBroker();
    cleanups.push(() => broker.cleanup());
    const lines = createDemoLines(runs, Date.UTC(2025, 6, 1, 12));
    const straight = createHarness();
    straight.feed(lines.join('\n'));
    await straight.sink.shutdown();
    const expected = new Set(straight.spans().map((sp) => sp.spanContext().spanId));
    await broker.publish(lines);
    const cli = startCli(broker.args(), {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_BSP_MAX_QUEUE_SIZE: String(queue),
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: String(batch),
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_METRIC_EXPORT_INTERVAL: '300',
    });
    cleanups.push(() => cli.stop('SIGKILL'));
    await cli.waitForStderr(/consuming /);
    const arrived = () => new Set(receiver.spans.map((sp) => sp.spanId));
    await waitFor(
      async () => [...expected].every((id) => arrived().has(id)) && (await broker.pending()) === 0,
      90_000,
      `every span at the collector and every message acknowledged (${what}): ${cli.stderr()}`,
    );
    // The queue did fill: the case under test happened.
    expect(cli.stderr(), what).toMatch(/spans past the span export queue wait in the bridge/);
    expect(cli.stderr(), what).not.toMatch(/Dropped \d+ spans/);
    expect(arrived().size, what).toBe(expected.size);
    const stopped = await cli.stop('SIGTERM');
    expect(stopped.code).toBe(0);
    expect(stopped.stdout).toContain(`acknowledged ${lines.length} messages`);
  }, 120_000);
});
