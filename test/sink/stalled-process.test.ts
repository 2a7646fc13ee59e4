// The reorder window counts time the bridge could read. A process that stalls (an overloaded
// machine, a long pause) reads what arrived during the stall only after its timers have run: were
// the stalled time counted, the events held before it would be applied first, and older events of
// their runs, already in the socket, would then come late. Stalls and timings are generated; the
// clock and timers are the test's (vitest's fake timers stand in for a real stall).
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { behest, RUN_A } from '../helpers/behest-lines.js';
import { createHarness } from '../helpers/harness.js';

const WINDOW = 1000;

describe('a stalled process', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('applies events read after a stall in their runs’ order', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 400, max: 20_000 }),
        fc.integer({ min: 1, max: 5 }),
        (stall, newer) => {
          let clock = Date.UTC(2026, 0, 1);
          const h = createHarness({
            reorderWindowMillis: WINDOW,
            lateGraceMillis: WINDOW,
            now: () => clock,
          });
          /** Time passing with the process running: its timers fire as due. */
          const run = (millis: number) => {
            for (let t = 0; t < millis; t += 10) {
              clock += 10;
              vi.advanceTimersByTime(10);
            }
          };
          h.feed(behest('RunStarted', RUN_A, '00.000', {}));
          // Newer events of the run, held for the window; then the process stalls.
          for (let i = 0; i < newer; i += 1)
            h.feed(
              behest('ToolExecutionStarted', RUN_A, `0${i + 2}.000`, {
                call_id: `c${i}`,
                tool_name: 't',
              }),
            );
          run(100);
          // Stalled: the clock moves, nothing runs. Then the timers run first, and what arrived
          // during the stall is read after them.
          clock += WINDOW + stall;
          vi.advanceTimersToNextTimer();
          const [older] = h.feed(
            behest('ModelStarted', RUN_A, '01.000', { iteration: 1, model: 'm' }),
          );
          run(WINDOW + stall + 2 * WINDOW);
          expect(older?.outcome).toBe('accepted');
          expect(h.sink.stats().events.late).toBe(0);
          // The tools started within the iteration its call began.
          h.feed(behest('RunCompleted', RUN_A, '09.000', {}));
          run(4 * WINDOW);
          const iteration = h.spans().find((s) => s.name === 'agent.iteration');
          const tools = h.spans().filter((s) => s.name === 'execute_tool t');
          expect(tools).toHaveLength(newer);
          for (const tool of tools)
            expect(tool.parentSpanContext?.spanId).toBe(iteration?.spanContext().spanId);
        },
      ),
      { numRuns: 50 },
    );
  });
});
