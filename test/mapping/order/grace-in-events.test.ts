// A log read at its own pace (`countWindowsInEvents`, as `ingest` reads files): a run's grace
// period after its terminal event ends after `lateGraceEvents` further input events, however
// little wall-clock time passed. The grace and the events that follow are generated.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RUN_A, RUN_B, toolRun } from '../../helpers/behest-lines.js';
import { createHarness } from '../../helpers/harness.js';

describe('the grace period counted in events', () => {
  it('ends a run exactly when lateGraceEvents further events have come in', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 0, max: 14 }),
        (lateGraceEvents, after) => {
          const h = createHarness({
            countWindowsInEvents: true,
            lateGraceEvents,
            lateGraceMillis: 600_000,
            reorderWindowMillis: 600_000,
          });
          h.feed([...toolRun(RUN_A), ...toolRun(RUN_B).slice(0, after)].join('\n'));
          const ended = h.spans().some((s) => s.attributes['agent.run.id'] === RUN_A);
          expect(ended).toBe(after >= lateGraceEvents);
          expect(h.sink.stats().runs.completed).toBe(after >= lateGraceEvents ? 1 : 0);
        },
      ),
      { numRuns: 150 },
    );
  });
});
