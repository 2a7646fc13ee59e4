// The renewal and balancing rounds run on a schedule of their own (docs/scaling-out.md, "Renewal"):
// a round starts when it is due, or as soon as the one before ends if that one ran past it; rounds
// never overlap or pile up; a failed round is reported and the next one runs on schedule; how late
// a round started is measured from when it was due; an abort ends the schedule at once. On
// generated rounds (durations around and beyond the period, failures anywhere, stalls of the
// process before a round), on a clock the test controls.
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { repeatEvery } from '../../src/partitions/repeat-every.js';

const START = 1_800_000_000_000;

describe('rounds repeated on a schedule of their own', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    vi.setSystemTime(START);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('starts each round when due or when the last one ended, one at a time', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 10, max: 1000 }),
        fc.array(
          fc.record({
            // How long the round's work takes, as a share of the period (some run past it).
            took: fc.double({ min: 0, max: 2.5, noNaN: true }),
            fails: fc.boolean(),
            // The process stalls (runs nothing) for this long as the round ends.
            stall: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3000 })),
          }),
          { minLength: 1, maxLength: 12 },
        ),
        async (every, rounds) => {
          vi.setSystemTime(START);
          const controller = new AbortController();
          const started: number[] = [];
          const lateness: number[] = [];
          const failures: unknown[] = [];
          let running = 0;
          let overlapped = false;
          let i = 0;
          const done = repeatEvery(
            async () => {
              const round = rounds[i];
              i += 1;
              started.push(Date.now());
              if (running > 0) overlapped = true;
              running += 1;
              if (round === undefined) {
                controller.abort();
                running -= 1;
                return;
              }
              const took = Math.round(round.took * every);
              if (took > 0) await new Promise((resolve) => setTimeout(resolve, took));
              // The process stalls (runs nothing) at the end of the round: the clock jumps.
              if (round.stall > 0) vi.setSystemTime(Date.now() + round.stall);
              running -= 1;
              if (round.fails) throw new Error(`round ${i} failed`);
            },
            {
              everyMillis: every,
              signal: controller.signal,
              failed: (error) => failures.push(error),
              late: (seconds) => lateness.push(seconds),
            },
          );
          while (!controller.signal.aborted) await vi.advanceTimersByTimeAsync(every);
          await done;

          expect(overlapped).toBe(false);
          expect(started).toHaveLength(rounds.length + 1);
          expect(failures.map(String)).toEqual(
            rounds.flatMap((r, k) => (r.fails ? [`Error: round ${k + 1} failed`] : [])),
          );
          // The model: the first round at once; each next one due a period after the one before
          // was due, or when that one ended (its stall included) if later, and started then; a
          // round due by the time the last one ended starts on the next turn of the event loop
          // (within a timer's least delay, 1 ms). Its lateness is measured from when it was due.
          let due = START;
          let start = START;
          for (let k = 0; k <= rounds.length; k += 1) {
            if (k > 0) {
              const last = rounds[k - 1]!;
              const ended = start + Math.round(last.took * every) + last.stall;
              due = Math.max(due + every, ended);
              start = started[k]!;
              if (due > ended) expect(start, `round ${k}`).toBe(due);
              else expect(start - ended, `round ${k}`).toBeOneOf([0, 1]);
            }
            expect(started[k], `round ${k}`).toBe(start);
            expect(lateness[k], `round ${k}`).toBe((start - due) / 1000);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('measures a round that starts late from when it was due, and keeps to the schedule after', async () => {
    const controller = new AbortController();
    const started: number[] = [];
    const lateness: number[] = [];
    const done = repeatEvery(
      () => {
        started.push(Date.now() - START);
        // During the wait for the second round, the process stalls for 250 ms.
        if (started.length === 1) setTimeout(() => vi.setSystemTime(Date.now() + 250), 40);
        if (started.length === 4) controller.abort();
        return Promise.resolve();
      },
      {
        everyMillis: 100,
        signal: controller.signal,
        failed: () => undefined,
        late: (seconds) => lateness.push(seconds),
      },
    );
    await vi.advanceTimersByTimeAsync(1000);
    await done;
    // Due at 100, started at 350: 0.25 s late. The next is due when that one ended (no second
    // catch-up: one round, on the next turn of the event loop), then a period after it.
    expect(started).toEqual([0, 350, 351, 450]);
    expect(lateness).toEqual([0, 0.25, 0.001, 0]);
  });

  it('ends at once when aborted during a round’s wait, and runs nothing more', async () => {
    const controller = new AbortController();
    let rounds = 0;
    const done = repeatEvery(
      () => {
        rounds += 1;
        return Promise.resolve();
      },
      { everyMillis: 60_000, signal: controller.signal, failed: () => undefined },
    );
    await vi.advanceTimersByTimeAsync(1);
    expect(rounds).toBe(1);
    controller.abort();
    await done;
    await vi.advanceTimersByTimeAsync(120_000);
    expect(rounds).toBe(1);
  });
});
