// Two different terminal events of one run (a runtime that reports a failure and then a
// completion, a redelivery of a cancelled run's end): the earliest by the run's own clock ends
// it, whichever arrived first, and every other one is counted late ("second_terminal"). The
// terminal events, their times and their arrival order are generated.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { behest, RUN_A, toolRun } from '../../helpers/behest-lines.js';
import { createHarness, spanByName } from '../../helpers/harness.js';

const TERMINALS = [
  { type: 'RunCompleted', outcome: 'completed', payload: { finish_reason: 'stop' } },
  { type: 'RunFailed', outcome: 'failed', payload: { error: 'tool crashed' } },
  { type: 'RunCancelled', outcome: 'cancelled', payload: {} },
] as const;

describe('several terminal events of one run', () => {
  it('ends the run by the earliest, whichever arrives first, and counts the others late', async () => {
    await fc.assert(
      fc.asyncProperty(
        // Each terminal variant at most once, at a time of its own after the run's last event.
        fc
          .uniqueArray(fc.integer({ min: 0, max: 2 }), { minLength: 2, maxLength: 3 })
          .chain((kinds) =>
            fc.tuple(
              fc.constant(kinds),
              fc.uniqueArray(fc.integer({ min: 100, max: 999 }), {
                minLength: kinds.length,
                maxLength: kinds.length,
              }),
            ),
          ),
        async ([kinds, millis]) => {
          const h = createHarness({ reorderWindowMillis: 1_000, lateGraceMillis: 60_000 });
          const ends = kinds.map((k, i) => ({ ...TERMINALS[k]!, second: `05.${millis[i]}` }));
          const results = h.feed(
            [
              ...toolRun().slice(0, -1),
              ...ends.map((e) => behest(e.type, RUN_A, e.second, e.payload)),
            ].join('\n'),
          );
          await h.sink.flush();
          const earliest = [...ends].sort((a, b) => a.second.localeCompare(b.second))[0]!;
          const root = spanByName(h.spans(), 'invoke_agent');
          expect(root.attributes['agent.run.outcome']).toBe(earliest.outcome);
          expect(h.sink.stats().events.late).toBe(ends.length - 1);
          expect(
            await h.sum('agent_bridge.events', { 'agent_bridge.reason': 'second_terminal' }),
          ).toBe(ends.length - 1);
          // One arriving after an earlier one is refused at once, saying why.
          ends.forEach((end, i) => {
            const result = results.at(i - ends.length)!;
            const earlierBefore = ends.slice(0, i).some((e) => e.second < end.second);
            expect(result.outcome).toBe(earlierBefore ? 'late' : 'accepted');
            if (earlierBefore)
              expect(result.message).toContain(`${end.type} for run ${RUN_A}, which already ended`);
          });
          expect(await h.sum('agent.runs')).toBe(1);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("takes an event of the terminal event's time, arriving after it, as an event of its own", async () => {
    // A runtime may stamp its last events and the run's end with one time: only the terminal
    // event itself, delivered again, is a duplicate of it.
    const h = createHarness({ reorderWindowMillis: 1_000, lateGraceMillis: 60_000 });
    const end = behest('RunCompleted', RUN_A, '02', { finish_reason: 'stop', iterations: 2 });
    const loop = behest('DoomLoopDetected', RUN_A, '02', { description: 'bash called 3 times' });
    const results = h.feed([...toolRun().slice(0, -1), end, loop, end].join('\n'));
    expect(results.slice(-3).map((r) => r.outcome)).toEqual(['accepted', 'accepted', 'duplicate']);
    await h.sink.flush();
    const root = spanByName(h.spans(), 'invoke_agent');
    expect(root.events.map((e) => e.name)).toContain('agent.doom_loop.detected');
    expect(await h.sum('agent.doom_loops')).toBe(1);
    expect(h.sink.stats().events.duplicate).toBe(1);
  });
});
