// Sub-agents consumed from the real NATS JetStream and Redis on this machine: a parent run and its
// sub-agents share one trace. Each run's messages are acknowledged once its own spans reached the
// collector, so every message is acknowledged and none is held for good, whichever run of the
// trace ends first and however the batches of its spans interleave with the others'.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { natsTestBroker, redisTestBroker } from '../helpers/test-brokers.js';
import { behest } from '../helpers/behest-lines.js';
import { startCli } from '../helpers/cli.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { waitFor } from '../helpers/wire-spans.js';

/** A run: its tool calls, and under which of its parent's calls it was spawned. */
interface Run {
  readonly runId: string;
  readonly tools: number;
  readonly spawnedBy?: { readonly parent: Run; readonly call: number };
  /** Seconds from the start at which it ends. */
  readonly endsAt: number;
}

const at = (seconds: number) => seconds.toFixed(3).padStart(6, '0');

/** A run's behest lines, its events spaced from `start` to its end. */
function runLines(run: Run, start: number): string[] {
  const { runId } = run;
  const spawn = run.spawnedBy;
  const step = (run.endsAt - start) / (4 + 2 * run.tools);
  let t = start;
  const next = () => at((t += step));
  const model = { provider: 'openai', model: 'gpt-4o-mini' };
  const lines = [
    behest('RunStarted', runId, at(start), {
      ...model,
      ...(spawn === undefined
        ? {}
        : { parent_run_id: spawn.parent.runId, parent_tool_call_id: `call_${spawn.call}` }),
    }),
    behest('ModelStarted', runId, next(), { ...model, iteration: 1 }),
    behest('AssistantMessageCommitted', runId, next(), { message_id: `m_${runId}` }),
  ];
  for (let call = 1; call <= run.tools; call += 1) {
    lines.push(
      behest('ToolExecutionStarted', runId, next(), {
        call_id: `call_${call}`,
        tool_name: 'research',
      }),
      behest('ToolExecutionFinished', runId, next(), {
        call_id: `call_${call}`,
        tool_name: 'research',
        result: { Success: { output: 'ok' } },
        duration_ms: 10,
      }),
    );
  }
  lines.push(behest('RunCompleted', runId, at(run.endsAt), { finish_reason: 'stop' }));
  return lines;
}

/**
 * A parent and generated sub-agents, each spawned by one of its tool calls, with generated ends
 * (a sub-agent may end after its parent). A sub-agent's trace is its parent's whether or not the
 * parent is open here (UUID run ids), so each tree is one trace.
 */
const runTree = fc
  .record({
    parentTools: fc.integer({ min: 1, max: 3 }),
    children: fc.array(
      fc.record({
        tools: fc.integer({ min: 0, max: 2 }),
        call: fc.nat(),
        endsAt: fc.integer({ min: 2, max: 9 }),
      }),
      { minLength: 1, maxLength: 4 },
    ),
    parentEndsAt: fc.integer({ min: 2, max: 9 }),
    order: fc.array(fc.nat(), { minLength: 60, maxLength: 60 }),
  })
  .map(({ parentTools, children, parentEndsAt, order }) => {
    const parent: Run = { runId: randomUUID(), tools: parentTools, endsAt: parentEndsAt };
    const runs: Run[] = [parent];
    for (const c of children)
      runs.push({
        runId: randomUUID(),
        tools: c.tools,
        spawnedBy: { parent, call: 1 + (c.call % parent.tools) },
        endsAt: c.endsAt,
      });
    // Each run's lines in its order; the runs' lines interleaved as generated.
    const queues = runs.map((r, i) => runLines(r, 0.1 * i));
    const published: string[] = [];
    for (let k = 0; queues.some((q) => q.length > 0); k += 1) {
      const open = queues.filter((q) => q.length > 0);
      published.push(open[(order[k % order.length] ?? 0) % open.length]!.shift()!);
    }
    return { runs, published };
  });

const ENV = {
  OTEL_METRIC_EXPORT_INTERVAL: '300',
  OTEL_BSP_SCHEDULE_DELAY: '50',
  // Small batches: a trace's spans reach the collector in several exports, in any order of runs.
  OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '3',
  AGENT_OTEL_BRIDGE_LATE_GRACE_MS: '200',
  AGENT_OTEL_BRIDGE_REORDER_WINDOW_MS: '100',
};

describe.each([
  ['NATS JetStream', () => natsTestBroker('AOB_SUB')],
  ['Redis Streams', () => redisTestBroker('aob:sub')],
] as const)('sub-agents from %s', (_name, makeBroker) => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it('acknowledges every message of a trace of several runs once each run is at the collector', async () => {
    const receiver = await startOtlpReceiver();
    cleanups.push(() => receiver.close());
    const seed = Date.now() % 1_000_000;
    const trees = fc.sample(runTree, { numRuns: 3, seed });
    const broker = makeBroker();
    cleanups.push(() => broker.cleanup());
    const published = trees.flatMap((t) => t.published);
    await broker.publish(published);
    const cli = startCli(broker.args(), { ...ENV, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    cleanups.push(() => cli.stop('SIGKILL'));
    const runIds = trees.flatMap((t) => t.runs.map((r) => r.runId));
    const ended = () =>
      new Set(
        receiver.spans
          .filter((s) => s.name.startsWith('invoke_agent'))
          .map((s) => s.attributes['agent.run.id']),
      );
    await waitFor(
      () => runIds.every((id) => ended().has(id)),
      20_000,
      `every run at the receiver (seed ${seed})`,
    );
    // One trace per tree, whichever run of it the bridge ended first.
    for (const tree of trees) {
      const ids = new Set(tree.runs.map((r) => r.runId));
      const traces = new Set(
        receiver.spans
          .filter((s) => ids.has(String(s.attributes['agent.run.id'])))
          .map((s) => s.traceId),
      );
      expect(traces.size).toBe(1);
    }
    await waitFor(
      async () => (await broker.pending()) === 0,
      15_000,
      `every one of ${published.length} messages acknowledged (${runIds.length} runs in ${trees.length} traces, seed ${seed}): ${cli.stderr()}`,
    );
    const stopped = await cli.stop('SIGTERM');
    expect(stopped.code).toBe(0);
    expect(stopped.stdout).toContain(`acknowledged ${published.length} messages`);
  });
});
