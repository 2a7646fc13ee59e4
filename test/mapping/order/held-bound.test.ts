// The bound on events held for reordering across all runs (`maxHeldEvents`): past it, the events
// held longest are applied at once, in their runs' order, and the limit is counted. Runs, their
// interleaving and the bound are generated; the reorder window (60 s) never passes meanwhile, so
// every event applied was applied by the bound. What each run applied is read from the open-runs
// view (its latest event's time: each run's events have times of their own).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toolRun } from '../../helpers/behest-lines.js';
import { createHarness } from '../../helpers/harness.js';

const RUNS = [
  '0190f3a2-7c4e-4b8a-9d2e-5f6a7b8c9d10',
  '0190f3a2-7c4e-4b8a-9d2e-5f6a7b8c9d11',
  '0190f3a2-7c4e-4b8a-9d2e-5f6a7b8c9d12',
];

const timeOf = (line: string) => /"timestamp":"([^"]+)"/.exec(line)![1]!;

describe('the bound on held events', () => {
  it('holds no more than maxHeldEvents, applying the longest-held first, and counts the limit', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: RUNS.length }),
        fc.array(fc.nat(), { minLength: 40, maxLength: 40 }),
        async (maxHeldEvents, runCount, choices) => {
          const h = createHarness({
            reorderWindowMillis: 60_000,
            lateGraceMillis: 60_000,
            maxHeldEvents,
          });
          // Every run's events but its terminal one, interleaved by the generated choices.
          const queues = RUNS.slice(0, runCount).map((r) => toolRun(r).slice(0, -1));
          const lines: string[] = [];
          for (let i = 0; queues.some((q) => q.length > 0); i += 1) {
            const open = queues.filter((q) => q.length > 0);
            lines.push(open[(choices[i % choices.length] ?? 0) % open.length]!.shift()!);
          }
          const results = h.feed(lines.join('\n'));
          expect(results.every((r) => r.outcome === 'accepted')).toBe(true);
          // The run's applied events are a prefix of its own: up to the latest event applied.
          const applied = new Map(
            h.sink.openRuns(10).runs.map((run) => {
              const own = toolRun(run.runId).slice(0, -1).map(timeOf);
              // The view gives nanoseconds; the lines milliseconds.
              const at = run.lastEventAt.replace(/(\.\d{3})\d*Z$/, '$1Z');
              return [run.runId, own.indexOf(at) + 1];
            }),
          );
          const appliedInAll = [...applied.values()].reduce((a, b) => a + b, 0);
          expect(lines.length - appliedInAll).toBe(Math.min(lines.length, maxHeldEvents));
          // The longest-held first: what is applied is the earliest arrivals, across runs.
          const expected = new Map<string, number>();
          for (const line of lines.slice(0, lines.length - maxHeldEvents)) {
            const runId = /"run_id":"([^"]+)"/.exec(line)![1]!;
            expected.set(runId, (expected.get(runId) ?? 0) + 1);
          }
          expect(applied).toEqual(expected);
          const hits = await h.sum('agent_bridge.limits.hit', {
            'agent_bridge.limit': 'held_events',
          });
          expect(hits > 0).toBe(lines.length > maxHeldEvents);
          await h.sink.shutdown();
        },
      ),
      { numRuns: 40 },
    );
  });
});
