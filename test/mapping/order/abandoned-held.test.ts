// A run the tracker ends without its terminal event (idle here; capacity and end of input take the
// same path) may still have events held for reordering, its terminal event among them: each is
// told it came late (`run_finished`), none is applied to a run that has ended, and nothing stays
// held. Checked on generated run lengths, hold sizes and idle times, against the count of events
// held when the run was abandoned.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config.js';
import { parseLine } from '../../../src/dialects/detect.js';
import type { AgentEvent } from '../../../src/events/agent-event.js';
import type { TrackOutcome } from '../../../src/mapping/run-tracker.js';
import { RUN_A, toolRun } from '../../helpers/behest-lines.js';
import { createTestMapping } from '../../helpers/sink-mapping.js';

const events: AgentEvent[] = toolRun(RUN_A).map((line) => {
  const { result } = parseLine(line, 'behest');
  if (!result.ok) throw new Error(result.message);
  return result.events[0]!;
});

describe('a run abandoned with events held', () => {
  it('tells each held event, its terminal event too, that it came late, and holds nothing more', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: events.length }),
        fc.integer({ min: 1, max: events.length - 1 }),
        fc.integer({ min: 1_001, max: 100_000 }),
        (fed, hold, idle) => {
          const nonTerminal = Math.min(fed, events.length - 1);
          fc.pre(nonTerminal > hold);
          let clock = 1_000_000;
          const { buffer, tracker, exporter } = createTestMapping(
            resolveConfig({
              env: {},
              reorderWindowMillis: 600_000,
              reorderWindowEvents: hold,
              lateGraceMillis: 600_000,
              idleTimeoutMillis: 1_000,
              now: () => clock,
            }),
          );
          const outcomes = new Map<number, TrackOutcome>();
          const settler = { settled: (i: number, o: TrackOutcome) => outcomes.set(i, o) };
          events.slice(0, fed).forEach((event, i) => buffer.offer(event, 'behest', settler, i));
          // The run is open (its earliest events applied); the latest `hold` and the terminal wait.
          const held = Math.min(nonTerminal, hold) + (fed === events.length ? 1 : 0);
          expect(tracker.isOpen(RUN_A)).toBe(true);
          expect(buffer.held).toBe(held);
          expect(outcomes.size).toBe(nonTerminal - Math.min(nonTerminal, hold));
          clock += idle;
          expect(tracker.abandonIdle()).toBe(1);
          expect(tracker.outcomes.abandoned).toBe(1);
          expect(buffer.held).toBe(0);
          expect(buffer.pendingRuns).toBe(0);
          expect(outcomes.size).toBe(fed);
          const late = [...outcomes.values()].filter((o) => o.outcome === 'late');
          expect(late).toHaveLength(held);
          for (const o of late) expect(o).toMatchObject({ reason: 'run_finished' });
          // Ended as abandoned, once: nothing held was applied to it after.
          const root = exporter
            .getFinishedSpans()
            .filter(
              (s) => s.attributes['agent.run.id'] === RUN_A && s.parentSpanContext === undefined,
            );
          expect(root).toHaveLength(1);
          expect(root[0]!.attributes['agent.run.outcome']).toBe('abandoned');
        },
      ),
      { numRuns: 150 },
    );
  });
});
