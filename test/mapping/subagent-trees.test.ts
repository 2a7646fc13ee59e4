// Trees of sub-agents, nested to any depth, mapped wherever each run happens to be processed: the
// runs of a generated tree are dealt at random to up to four sinks that never talk (processes,
// partitions), and the spans of all of them together must be the spans of the tree mapped in one
// sink: the same trace, the same span ids, the same parents. A run nested deeper than its parent
// names the top run (`rootRunId`; behest: `root_run_id`), so its trace and its parent's span id
// are known without its parent open beside it.
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/events/agent-event.js';
import { compareHrTime } from '../../src/events/hr-time.js';
import { createHarness } from '../helpers/harness.js';

const runId = (i: number) => `0190f3a2-7c4e-4b8a-9d2e-${String(i).padStart(12, '0')}`;
const t = (ms: number): [number, number] => [
  1_750_000_000 + Math.floor(ms / 1000),
  (ms % 1000) * 1e6,
];

interface Tree {
  /** parents[i - 1]: the parent of run i (run 0 is the top run). */
  readonly parents: readonly number[];
  /** Whether a child of the top run names it as `rootRunId` too (it may, or leave it out). */
  readonly namesTop: readonly boolean[];
  /** Whether each run's spawning call is named (else the child hangs under the parent's run span). */
  readonly namesCall: readonly boolean[];
}

const tree: fc.Arbitrary<Tree> = fc.integer({ min: 2, max: 9 }).chain((n) =>
  fc.record({
    parents: fc.tuple(...Array.from({ length: n - 1 }, (_, i) => fc.nat(i))),
    namesTop: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
    namesCall: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
  }),
);

/** Every run's events, each child within the tool call of its parent that spawns it. */
function eventsOf(tree: Tree): AgentEvent[][] {
  const n = tree.parents.length + 1;
  const children = Array.from({ length: n }, () => [] as number[]);
  tree.parents.forEach((p, i) => children[p]!.push(i + 1));
  const events: AgentEvent[][] = Array.from({ length: n }, () => []);
  let clock = 0;
  const walk = (run: number, parent: number | undefined) => {
    const id = runId(run);
    const add = (event: Record<string, unknown>) =>
      events[run]!.push({ runId: id, time: t((clock += 5)), ...event } as AgentEvent);
    add({
      type: 'RunStarted',
      agentName: `agent${run}`,
      ...(parent === undefined ? {} : { parentRunId: runId(parent) }),
      ...(parent !== undefined && tree.namesCall[run] ? { parentToolCallId: `spawn_${run}` } : {}),
      ...(parent === undefined || (parent === 0 && !tree.namesTop[run])
        ? {}
        : { rootRunId: runId(0) }),
    });
    add({ type: 'ModelStarted', iteration: 1, provider: 'openai', model: 'gpt-4o-mini' });
    add({ type: 'UsageRecorded', usage: { inputTokens: 10, outputTokens: 2 } });
    add({ type: 'AssistantMessageCommitted' });
    for (const child of children[run]!) {
      const call = { callId: `spawn_${child}`, toolName: 'delegate' };
      add({ type: 'ToolExecutionStarted', ...call });
      walk(child, run);
      add({ type: 'ToolExecutionFinished', ...call, result: { ok: true, output: '' } });
    }
    add({ type: 'RunCompleted' });
  };
  walk(0, undefined);
  return events;
}

async function mapped(events: readonly AgentEvent[]): Promise<ReadableSpan[]> {
  const h = createHarness();
  for (const e of [...events].sort((a, b) => compareHrTime(a.time, b.time))) h.sink.handle(e);
  await h.sink.shutdown();
  return h.spans();
}

const view = (spans: readonly ReadableSpan[]) =>
  spans
    .map(
      (s) =>
        `${s.spanContext().traceId} ${s.spanContext().spanId} ${s.parentSpanContext?.spanId ?? '-'} ${s.name}`,
    )
    .sort();

describe('trees of sub-agents', () => {
  it('are one trace, the same spans and parents, however their runs are dealt to processes', async () => {
    let dealtApart = 0;
    await fc.assert(
      fc.asyncProperty(
        tree,
        fc.array(fc.nat(3), { minLength: 9, maxLength: 9 }),
        async (tree, deal) => {
          const runs = eventsOf(tree);
          const together = await mapped(runs.flat());
          // One trace, one root, every parent a span of it.
          expect(new Set(together.map((s) => s.spanContext().traceId)).size).toBe(1);
          const ids = new Set(together.map((s) => s.spanContext().spanId));
          expect(ids.size).toBe(together.length);
          expect(together.filter((s) => s.parentSpanContext === undefined)).toHaveLength(1);
          for (const s of together)
            if (s.parentSpanContext !== undefined)
              expect(ids.has(s.parentSpanContext.spanId)).toBe(true);
          const processes = new Map<number, AgentEvent[]>();
          runs.forEach((events, i) =>
            processes.set(deal[i]!, [...(processes.get(deal[i]!) ?? []), ...events]),
          );
          const apart = (await Promise.all([...processes.values()].map(mapped))).flat();
          expect(view(apart)).toEqual(view(together));
          if (tree.parents.some((p, i) => p !== 0 && deal[p] !== deal[i + 1])) dealtApart += 1;
        },
      ),
      { numRuns: 300 },
    );
    // Runs nested deeper than the top run's children were processed apart from their parents.
    expect(dealtApart).toBeGreaterThan(50);
  });
});
