// The span export queue (OTEL_BSP_MAX_QUEUE_SIZE) filling under a broker source, on the real
// NATS JetStream and Redis of this machine: a slow collector, a small queue, runs ending in bursts.
// Spans past a full queue wait in the bridge for room (none is dropped, so no run has to be
// redelivered for it), and the source pauses while the queue is over half full, so that every run
// reaches the collector whole and every message is acknowledged. A run with more spans than the
// queue holds too: its events are pulled and applied together, so its spans end in one burst;
// were those past the queue dropped and the run redelivered, the redelivered run would end in the
// same burst again, for good. Queue size, batch size, the collector's delay and the runs are drawn
// at random (the seed is printed on failure).
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createDemoLines } from '../../src/sources/demo-runs.js';
import { natsTestBroker, redisTestBroker } from '../helpers/test-brokers.js';
import type { TestBroker } from '../helpers/test-brokers.js';
import { startCli } from '../helpers/cli.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { createHarness } from '../helpers/harness.js';
import { waitFor } from '../helpers/wire-spans.js';

const shortRuns = fc.record({
  // Below what the runs' spans take when they end together, so that some wait.
  queue: fc.integer({ min: 16, max: 40 }),
  batch: fc.constantFrom(4, 8, 16),
  delayMillis: fc.integer({ min: 50, max: 200 }),
  runs: fc.integer({ min: 30, max: 40 }),
});

const longRuns = fc.record({
  queue: fc.integer({ min: 16, max: 64 }),
  batch: fc.constantFrom(4, 8, 16),
  delayMillis: fc.integer({ min: 10, max: 80 }),
  // Each long run: its iterations and the tools of each (a span per tool, two per iteration).
  long: fc.array(
    fc.record({
      iterations: fc.integer({ min: 30, max: 60 }),
      tools: fc.integer({ min: 1, max: 3 }),
    }),
    { minLength: 1, maxLength: 3 },
  ),
  runs: fc.integer({ min: 0, max: 12 }),
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

interface Round {
  readonly queue: number;
  readonly batch: number;
  readonly delayMillis: number;
  readonly what: string;
}

describe.each([
  ['NATS JetStream', () => natsTestBroker('AOB_QUEUE')],
  ['Redis Streams', () => redisTestBroker('aob:queue')],
] as const)('a span queue too small, from %s', (_name, makeBroker) => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  /**
   * `lines` published, then consumed through a queue of `round.queue` spans: every span the runs
   * make in one process reaches the collector, every message is acknowledged, spans waited for
   * room and none was dropped. Answers the spans of each trace.
   */
  async function throughSmallQueue(
    broker: TestBroker,
    lines: readonly string[],
    round: Round,
    extraEnv: Record<string, string> = {},
  ): Promise<Map<string, number>> {
    const { queue, batch, delayMillis, what } = round;
    const straight = createHarness();
    straight.feed(lines.join('\n'));
    await straight.sink.shutdown();
    const expected = new Set(straight.spans().map((sp) => sp.spanContext().spanId));
    const perTrace = new Map<string, number>();
    for (const sp of straight.spans())
      perTrace.set(sp.spanContext().traceId, (perTrace.get(sp.spanContext().traceId) ?? 0) + 1);
    const receiver = await startOtlpReceiver();
    cleanups.push(() => receiver.close());
    receiver.delayMillis = delayMillis;
    cleanups.push(() => broker.cleanup());
    await broker.publish(lines);
    const cli = startCli(broker.args(), {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_BSP_MAX_QUEUE_SIZE: String(queue),
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: String(batch),
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_METRIC_EXPORT_INTERVAL: '300',
      ...extraEnv,
    });
    cleanups.push(() => cli.stop('SIGKILL'));
    await cli.waitForStderr(/consuming /);
    const arrived = () => new Set(receiver.spans.map((sp) => sp.spanId));
    await waitFor(
      async () => [...expected].every((id) => arrived().has(id)) && (await broker.pending()) === 0,
      90_000,
      `every span at the collector and every message acknowledged (${what}): ${cli.stderr()}`,
    );
    // The queue did fill (the case under test happened), and nothing was dropped.
    expect(cli.stderr(), what).toMatch(/spans past the span export queue wait in the bridge/);
    expect(cli.stderr(), what).not.toMatch(/Dropped \d+ spans/);
    expect(arrived().size, what).toBe(expected.size);
    const stopped = await cli.stop('SIGTERM');
    expect(stopped.code).toBe(0);
    expect(stopped.stdout).toContain(`acknowledged ${lines.length} messages`);
    return perTrace;
  }

  it('holds the spans past the queue until every run is whole and every message acknowledged', async () => {
    const seed = Date.now() % 1_000_000;
    const [s] = fc.sample(shortRuns, { numRuns: 1, seed });
    const what = `seed ${seed}: ${JSON.stringify(s)}`;
    const lines = createDemoLines(s!.runs, Date.UTC(2025, 6, 1, 12));
    await throughSmallQueue(makeBroker(), lines, { ...s!, what });
  }, 120_000);

  it('exports a run longer than the queue once its spans fit, and acknowledges every message', async () => {
    const seed = Date.now() % 1_000_000;
    const [s] = fc.sample(longRuns, { numRuns: 1, seed });
    const what = `seed ${seed}: ${JSON.stringify(s)}`;
    const start = Date.UTC(2025, 6, 1, 12);
    const lines = [
      ...(s!.runs > 0 ? createDemoLines(s!.runs, start) : []),
      ...s!.long.flatMap((r, i) => longRun(i, r.iterations, r.tools, start + i * 1000)),
    ];
    const perTrace = await throughSmallQueue(
      makeBroker(),
      lines,
      { ...s!, what },
      {
        AGENT_OTEL_BRIDGE_LATE_GRACE_MS: '200',
      },
    );
    // A long run alone has more spans than the queue holds: the case under test.
    expect(Math.max(...perTrace.values()), what).toBeGreaterThan(s!.queue);
  }, 120_000);
});
