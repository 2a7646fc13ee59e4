// A run with more spans than the span export queue holds (OTEL_BSP_MAX_QUEUE_SIZE), read from a
// broker, on the real NATS JetStream and Redis of this machine. Its events are pulled together
// and applied together, so its spans end in one burst: were the spans past the queue dropped and
// the run redelivered, the redelivered run would end in the same burst again, for good. The spans
// past the queue wait in the bridge instead, and the source pulls nothing more until they are in
// it. The queue, the batch, the collector's delay and the long runs' shapes are drawn at random
// (the seed is printed on failure).
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createDemoLines } from '../../src/sources/demo-runs.js';
import { natsTestBroker, redisTestBroker } from '../helpers/test-brokers.js';
import { startCli } from '../helpers/cli.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { createHarness } from '../helpers/harness.js';
import { waitFor } from '../helpers/wire-spans.js';

const setting = fc.record({
  queue: fc.integer({ min: 16, max: 64 }),
  batch: fc.constantFrom(4, 8, 16),
  delayMillis: fc.integer({ min: 10, max: 80 }),
  // Each long run: its iterations and the tools of each (a span per tool, two per iteration).
  longRuns: fc.array(
    fc.record({
      iterations: fc.integer({ min: 30, max: 60 }),
      tools: fc.integer({ min: 1, max: 3 }),
    }),
    { minLength: 1, maxLength: 3 },
  ),
  shortRuns: fc.integer({ min: 0, max: 12 }),
});

/** A behest run of `iterations` model calls with `tools` tools each, timed from `startMs`. */
function longRun(index: number, iterations: number, tools: number, startMs: number): string[] {
  const runId = `0190f3a2-7c4e-4b8a-9d2e-${String(index).padStart(12, '0')}`;
  let ms = startMs;
  const lines: string[] = [];
  const add = (variant: string, payload: Record<string, unknown>) => {
    ms += 3;
    lines.push(
      JSON.stringify({
        [variant]: { run_id: runId, ...payload, timestamp: new Date(ms).toISOString() },
      }),
    );
  };
  add('RunStarted', { session_id: `s-${index}`, provider: 'openai', model: 'gpt-4o-mini' });
  for (let i = 1; i <= iterations; i += 1) {
    add('ModelStarted', { provider: 'openai', model: 'gpt-4o-mini', iteration: i });
    for (let t = 0; t < tools; t += 1)
      add('ToolCallCompleted', { call: { id: `c${i}_${t}`, name: 'bash', arguments: {} } });
    add('UsageRecorded', { usage: { input_tokens: 100, output_tokens: 9, total_tokens: 109 } });
    add('AssistantMessageCommitted', { message_id: `m-${i}` });
    for (let t = 0; t < tools; t += 1) {
      add('ToolExecutionStarted', { call_id: `c${i}_${t}`, tool_name: 'bash' });
      add('ToolExecutionFinished', {
        call_id: `c${i}_${t}`,
        tool_name: 'bash',
        result: { Success: { output: 'ok' } },
        duration_ms: 1,
      });
    }
  }
  add('RunCompleted', { finish_reason: 'stop', iterations });
  return lines;
}

describe.each([
  ['NATS JetStream', () => natsTestBroker('AOB_LONG')],
  ['Redis Streams', () => redisTestBroker('aob:long')],
] as const)('a run longer than the span queue, from %s', (_name, makeBroker) => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it('exports every span of it once its spans fit, and acknowledges every message', async () => {
    const seed = Date.now() % 1_000_000;
    const [s] = fc.sample(setting, { numRuns: 1, seed });
    const { queue, batch, delayMillis, longRuns, shortRuns } = s!;
    const what = `seed ${seed}: queue ${queue}, batch ${batch}, delay ${delayMillis} ms, long runs ${JSON.stringify(longRuns)}, ${shortRuns} short runs`;
    const start = Date.UTC(2025, 6, 1, 12);
    const lines = [
      ...(shortRuns > 0 ? createDemoLines(shortRuns, start) : []),
      ...longRuns.flatMap((r, i) => longRun(i, r.iterations, r.tools, start + i * 1000)),
    ];
    const straight = createHarness();
    straight.feed(lines.join('\n'));
    await straight.sink.shutdown();
    const expected = new Set(straight.spans().map((sp) => sp.spanContext().spanId));
    // A long run alone has more spans than the queue holds: the case under test.
    const perTrace = new Map<string, number>();
    for (const sp of straight.spans())
      perTrace.set(sp.spanContext().traceId, (perTrace.get(sp.spanContext().traceId) ?? 0) + 1);
    expect(Math.max(...perTrace.values()), what).toBeGreaterThan(queue);
    const receiver = await startOtlpReceiver();
    cleanups.push(() => receiver.close());
    receiver.delayMillis = delayMillis;
    const broker = makeBroker();
    cleanups.push(() => broker.cleanup());
    await broker.publish(lines);
    const cli = startCli(broker.args(), {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_BSP_MAX_QUEUE_SIZE: String(queue),
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: String(batch),
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_METRIC_EXPORT_INTERVAL: '300',
      AGENT_OTEL_BRIDGE_LATE_GRACE_MS: '200',
    });
    cleanups.push(() => cli.stop('SIGKILL'));
    await cli.waitForStderr(/consuming /);
    const arrived = () => new Set(receiver.spans.map((sp) => sp.spanId));
    await waitFor(
      async () => [...expected].every((id) => arrived().has(id)) && (await broker.pending()) === 0,
      60_000,
      `every span at the collector and every message acknowledged (${what}): ${cli.stderr()}`,
    );
    expect(arrived().size, what).toBe(expected.size);
    // Nothing was dropped, so nothing was delivered twice to make up for it.
    expect(cli.stderr(), what).not.toMatch(/Dropped \d+ spans/);
    expect(cli.stderr(), what).toMatch(/spans past the span export queue wait in the bridge/);
    const stopped = await cli.stop('SIGTERM');
    expect(stopped.code).toBe(0);
    expect(stopped.stdout).toContain(`acknowledged ${lines.length} messages`);
  }, 90_000);
});
