// The bound on open runs (`maxOpenRuns`) with runs in their grace period: when a new run comes and
// the bound is reached, a run that has ended (only waiting for late arrivals) leaves its grace
// early, oldest first, before any open run is abandoned. Checked against a model on generated
// sequences of ended and open runs and bounds.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toolRun } from '../../helpers/behest-lines.js';
import { createHarness } from '../../helpers/harness.js';

const runId = (i: number) => `0190f3a2-7c4e-4b8a-9d2e-5f6a7b8c9${String(i).padStart(3, '0')}`;

describe('the bound on open runs', () => {
  it('ends runs in their grace period first, oldest first, and abandons an open run only when none is', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 3 }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
        async (maxOpenRuns, ended) => {
          const h = createHarness({ reorderWindowMillis: 0, lateGraceMillis: 60_000, maxOpenRuns });
          // Model: the tracked runs in order of activity (each run's events come together).
          const tracked: { id: string; ended: boolean }[] = [];
          const outcomes = new Map<string, string>();
          const lines: string[] = [];
          ended.forEach((isEnded, i) => {
            const id = runId(i);
            if (tracked.length >= maxOpenRuns) {
              const graced = tracked.findIndex((r) => r.ended);
              const [gone] = tracked.splice(graced >= 0 ? graced : 0, 1);
              outcomes.set(gone!.id, gone!.ended ? 'completed' : 'abandoned');
            }
            tracked.push({ id, ended: isEnded });
            lines.push(...(isEnded ? toolRun(id) : toolRun(id).slice(0, 4)));
          });
          h.feed(lines.join('\n'));
          const made = new Map(
            h
              .spans()
              .filter((s) => s.name.startsWith('invoke_agent'))
              .map((s) => [
                String(s.attributes['agent.run.id']),
                String(s.attributes['agent.run.outcome']),
              ]),
          );
          expect(made).toEqual(outcomes);
          const stats = h.sink.stats().runs;
          expect(stats.open).toBe(tracked.length);
          expect(stats.abandoned).toBe(
            [...outcomes.values()].filter((o) => o === 'abandoned').length,
          );
          // Either way the bound was met, and counted.
          const hits = await h.sum('agent_bridge.limits.hit', {
            'agent_bridge.limit': 'open_runs',
          });
          expect(hits > 0).toBe(outcomes.size > 0);
        },
      ),
      { numRuns: 100 },
    );
  });
});
