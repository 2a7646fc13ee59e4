// Behind a router, events a runtime displaced reach an instance in the runtime's order, but with the
// router's gaps between them: a router that pauses (or dies, and another takes over) between a
// run's later event and its earlier one would let the instance's window, counted on its own clock,
// apply the later one and count the earlier one late. The router's drain marks (routed-marks.ts)
// bound the window's clock: checked on generated runs of displacement, router gaps and timer
// periods, every event is applied in its run's order; without the marks, the same arrivals leave
// events late.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseLine } from '../../../src/dialects/detect.js';
import type { AgentEvent } from '../../../src/events/agent-event.js';
import type { TrackOutcome } from '../../../src/mapping/run-tracker.js';
import { markText, RoutedClock } from '../../../src/partitions/routed-marks.js';
import { RUN_A, toolRun } from '../../helpers/behest-lines.js';
import { createWindowedMapping, exportedSpans } from '../../helpers/sink-mapping.js';

const events: AgentEvent[] = toolRun(RUN_A).map((line) => {
  const { result } = parseLine(line, 'behest');
  if (!result.ok) throw new Error(result.message);
  return result.events[0]!;
});

const WINDOW = 1_000;
/** The runtime publishes an event every this many ms. */
const STEP = 40;
/** From the router's read to the instance. */
const LATENCY = 5;

interface Schedule {
  /** The order the runtime published the run's events in (each moved by less than the window). */
  readonly published: readonly number[];
  /** The router stops before routing the `gapAt`-th published event, for `gap` ms. */
  readonly gapAt: number;
  readonly gap: number;
  /** The router's marks come every this many ms while it routes; the buffer's timer runs every `tickEvery`. */
  readonly markEvery: number;
  readonly tickEvery: number;
}

interface Fed {
  readonly outcomes: TrackOutcome[];
  readonly spans: string[];
}

function feed(schedule: Schedule, marks: boolean): Fed {
  let clock = 1_000_000;
  const start = clock;
  const { buffer, exporter } = createWindowedMapping(WINDOW, () => clock);
  const routed = new RoutedClock({
    silenceMillis: 60_000,
    now: () => clock,
    report: () => undefined,
  });
  if (marks) buffer.readThrough = () => routed.through();
  // The router was routing before the run began.
  routed.heard(markText(0));
  const outcomes: TrackOutcome[] = [];
  const settler = { settled: (i: number, o: TrackOutcome) => (outcomes[i] = o) };
  // When each event reaches the instance: published, read by the router (after its gap, if it
  // falls there), then sent on. The router routes in the order it read.
  const resumeAt = start + schedule.gapAt * STEP + schedule.gap;
  const arrivals = schedule.published.map((index, k) => {
    const publishedAt = start + k * STEP;
    const readAt = k >= schedule.gapAt ? Math.max(publishedAt, resumeAt) : publishedAt;
    return { index, at: readAt + LATENCY };
  });
  // A mark sent at t says the router read to the end at t - LATENCY, and what that read took has
  // arrived: true of a read before the gap, or of one once the router is back (its backlog read).
  const readToEnd = (t: number) =>
    t - LATENCY < start + schedule.gapAt * STEP || t - LATENCY >= resumeAt;
  const end = arrivals[arrivals.length - 1]!.at + 10 * WINDOW;
  let nextTick = clock + schedule.tickEvery;
  let nextMark = clock + schedule.markEvery;
  let next = 0;
  while (clock < end) {
    const arrival = arrivals[next];
    const t = Math.min(nextTick, nextMark, arrival?.at ?? Infinity);
    clock = t;
    if (arrival !== undefined && t === arrival.at) {
      next += 1;
      const o = buffer.offer(events[arrival.index]!, 'behest', settler, arrival.index);
      if (!('held' in o && o.held === true)) outcomes[arrival.index] = o;
    } else if (t === nextMark) {
      nextMark += schedule.markEvery;
      if (readToEnd(t)) routed.heard(markText(LATENCY));
    } else {
      nextTick += schedule.tickEvery;
      buffer.tick();
    }
  }
  return {
    outcomes,
    spans: exportedSpans(exporter),
  };
}

/** The run's events in an order where each is moved by at most `reach` places, from `swaps`. */
function displaced(swaps: readonly number[], reach: number): number[] {
  const order = events.map((_, i) => i);
  for (const [k, s] of swaps.entries()) {
    const i = k % (order.length - 1);
    const j = Math.min(order.length - 1, i + 1 + (s % reach));
    if (Math.abs(order[i]! - j) <= reach && Math.abs(order[j]! - i) <= reach)
      [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

describe("a router's gaps and an instance's reorder window", () => {
  it("applies every event in its run's order through a router's pause, where without its marks some come late", () => {
    const inOrder = feed(
      { published: events.map((_, i) => i), gapAt: 0, gap: 0, markEvery: 100, tickEvery: 100 },
      true,
    );
    expect(inOrder.outcomes.every((o) => o.outcome === 'accepted')).toBe(true);
    expect(inOrder.spans).toHaveLength(6);
    // Events moved by up to 5 places are at most 200 ms apart: well within the window.
    const reach = 5;
    let lateWithout = 0;
    fc.assert(
      fc.property(
        fc.array(fc.nat(), { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 1, max: events.length - 1 }),
        fc.integer({ min: 0, max: 12_000 }),
        fc.integer({ min: 20, max: 1_200 }),
        fc.integer({ min: 5, max: 300 }),
        (swaps, gapAt, gap, markEvery, tickEvery) => {
          const schedule = { published: displaced(swaps, reach), gapAt, gap, markEvery, tickEvery };
          const held = feed(schedule, true);
          expect(held.outcomes.map((o) => o.outcome)).toEqual(events.map(() => 'accepted'));
          expect(held.spans).toEqual(inOrder.spans);
          if (feed(schedule, false).outcomes.some((o) => o.outcome === 'late')) lateWithout += 1;
        },
      ),
      { numRuns: 300 },
    );
    // The schedules do reach the defect the marks fix.
    expect(lateWithout).toBeGreaterThan(0);
  });
});
