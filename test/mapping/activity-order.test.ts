// The tracker ends at capacity the run whose latest event came first, and at each idle sweep
// exactly the runs idle past the timeout: checked against a model on random interleavings of six
// runs and random clock steps (some around a second), with capacities of one to four.
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { behest } from '../helpers/behest-lines.js';
import { createHarness } from '../helpers/harness.js';

const RUNS = Array.from(
  { length: 6 },
  (_, i) => `0190f3a2-7c4e-4b8a-9d2e-${String(i + 1).padStart(12, '0')}`,
);
const IDLE_MILLIS = 10_000;

const steps = fc.array(
  fc.record({
    run: fc.integer({ min: 0, max: RUNS.length - 1 }),
    advance: fc.oneof(
      fc.integer({ min: 0, max: 5 }),
      fc.integer({ min: 900, max: 1100 }),
      fc.integer({ min: 0, max: 3000 }),
    ),
  }),
  { minLength: 1, maxLength: 50 },
);

/** Feeds the steps; the model's expectations of what was ended, and the harness. */
function play(plan: { run: number; advance: number }[], maxOpenRuns: number) {
  vi.useFakeTimers();
  let now = 1_000_000;
  const h = createHarness({ maxOpenRuns, idleTimeoutMillis: IDLE_MILLIS, now: () => now });
  // The model: the open runs with the order and time of their latest event.
  const open = new Map<number, { seq: number; at: number }>();
  const ended = new Set<number>();
  const seen = new Set<number>();
  const evicted: string[] = [];
  plan.forEach(({ run, advance }, i) => {
    now += advance;
    if (ended.has(run)) return;
    if (!open.has(run) && open.size >= maxOpenRuns) {
      const [oldest] = [...open].reduce((a, b) => (b[1].seq < a[1].seq ? b : a));
      open.delete(oldest);
      ended.add(oldest);
      evicted.push(RUNS[oldest]!);
    }
    open.set(run, { seq: i, at: now });
    const second = String(i).padStart(2, '0');
    h.feed(
      seen.has(run)
        ? behest('TextDelta', RUNS[run]!, second, { delta: 'x' })
        : behest('RunStarted', RUNS[run]!, second, {}),
    );
    seen.add(run);
  });
  return {
    h,
    evicted,
    open,
    advance: (millis: number) => (now += millis),
    now: () => now,
  };
}

const endedRuns = (h: ReturnType<typeof createHarness>) =>
  h
    .spans()
    .filter((s) => s.name.startsWith('invoke_agent'))
    .map((s) => String(s.attributes['agent.run.id']));

describe('the open runs in activity order', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('ends at capacity the run whose latest event came first', () => {
    fc.assert(
      fc.property(steps, fc.integer({ min: 1, max: 4 }), (plan, maxOpenRuns) => {
        const { h, evicted } = play(plan, maxOpenRuns);
        expect(endedRuns(h)).toEqual(evicted);
        vi.useRealTimers();
      }),
      { numRuns: 200 },
    );
  });

  it('ends at the idle sweep exactly the runs idle past the timeout', () => {
    fc.assert(
      fc.property(steps, fc.integer({ min: 0, max: 12_000 }), (plan, wait) => {
        const { h, evicted, open, advance, now } = play(plan, RUNS.length);
        expect(evicted).toEqual([]);
        advance(wait);
        const idle = [...open]
          .filter(([, last]) => last.at <= now() - IDLE_MILLIS)
          .map(([run]) => RUNS[run]!);
        // One sweep (every idle/4): the clock the tracker reads does not move meanwhile.
        vi.advanceTimersByTime(IDLE_MILLIS / 4);
        expect(endedRuns(h).sort()).toEqual(idle.sort());
        vi.useRealTimers();
      }),
      { numRuns: 200 },
    );
  });
});
