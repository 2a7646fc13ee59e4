// Each lane (a partition of a partitioned consumer) is held by its own clock: the time through
// which its partition has been read, and the holds of its consumer. A lane read late, or one whose
// consumer lost messages in flight, must hold its own runs and none of another lane's. Checked as a
// difference between two buffers, on generated runs, arrivals, lanes, stalls of a lane's reading,
// holds and timer periods: one buffer given every lane's events applies each event when, and as,
// a buffer given only its lane's events does, and the spans are the same. Across the schedules,
// some events are applied while another lane is stalled or held: where one clock for all lanes
// would have kept them waiting.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseLine } from '../../../src/dialects/detect.js';
import type { AgentEvent } from '../../../src/events/agent-event.js';
import type { TrackOutcome } from '../../../src/mapping/run-tracker.js';
import { toolRun } from '../../helpers/behest-lines.js';
import { createWindowedMapping, exportedSpans } from '../../helpers/sink-mapping.js';

const WINDOW = 1_000;
const START = 1_000_000;

const runEvents = (n: number): AgentEvent[] =>
  toolRun(`0190f3a2-7c4e-4b8a-9d2e-5f6a7b8c9${n.toString(16).padStart(3, '0')}`).map((line) => {
    const { result } = parseLine(line, 'behest');
    if (!result.ok) throw new Error(result.message);
    return result.events[0]!;
  });
const EVENTS = runEvents(0).length;

interface Run {
  readonly lane: number;
  /** When its first event arrives (ms after the start), and the time between its events. */
  readonly start: number;
  readonly step: number;
  /** Events swapped with the one after them as they arrive (displaced by the runtime). */
  readonly swaps: readonly number[];
}

/** A span of time (ms after the start) during which a lane's reading stood still. */
interface Stall {
  readonly lane: number;
  readonly at: number;
  readonly lasts: number;
}

/** A hold on a lane from `at`, for `lasts`, let go of `letGoAfter` later (if that is sooner). */
interface Hold {
  readonly lane: number;
  readonly at: number;
  readonly lasts: number;
  readonly letGoAfter: number;
}

interface Schedule {
  readonly lanes: number;
  readonly runs: readonly Run[];
  readonly stalls: readonly Stall[];
  readonly holds: readonly Hold[];
  readonly tickEvery: number;
}

type Action =
  | { readonly at: number; readonly kind: 'offer'; readonly run: number; readonly k: number }
  | { readonly at: number; readonly kind: 'hold'; readonly hold: number }
  | { readonly at: number; readonly kind: 'letGo'; readonly hold: number };

/** The time through which lane `lane` has been read at `now`: it stands still while stalled. */
function through(stalls: readonly Stall[], lane: number, now: number): number {
  let at = now;
  for (const s of stalls)
    if (s.lane === lane && now >= START + s.at && now < START + s.at + s.lasts)
      at = Math.min(at, START + s.at);
  return at;
}

/** Every event's arrival, in arrival order, and the holds' starts and ends among them. */
function actions(schedule: Schedule, laneOnly?: number): Action[] {
  const out: Action[] = [];
  schedule.runs.forEach((run, r) => {
    if (laneOnly !== undefined && run.lane !== laneOnly) return;
    const order = [...Array(EVENTS).keys()];
    for (const i of run.swaps) [order[i], order[i + 1]] = [order[i + 1]!, order[i]!];
    order.forEach((k, n) =>
      out.push({ at: START + run.start + n * run.step, kind: 'offer', run: r, k }),
    );
  });
  schedule.holds.forEach((hold, h) => {
    if (laneOnly !== undefined && hold.lane !== laneOnly) return;
    out.push({ at: START + hold.at, kind: 'hold', hold: h });
    out.push({ at: START + hold.at + hold.letGoAfter, kind: 'letGo', hold: h });
  });
  // A stable sort: at one time, the order in which they were listed.
  return out.sort((a, b) => a.at - b.at);
}

interface Fed {
  /** `run:k` → when it was applied (or answered), and how. */
  readonly applied: Map<string, readonly [number, TrackOutcome['outcome']]>;
  readonly spans: string[];
}

/**
 * Feeds a buffer what `schedule` makes, every lane's (as lanes) or `laneOnly`'s alone (as the
 * buffer's only lane, its holds on everything).
 */
function feed(schedule: Schedule, laneOnly?: number): Fed {
  let clock = START;
  const { buffer, exporter } = createWindowedMapping(WINDOW, () => clock);
  buffer.readThrough = (lane) => through(schedule.stalls, laneOnly ?? lane, clock);
  const events = schedule.runs.map((_, r) => runEvents(r));
  const applied = new Map<string, readonly [number, TrackOutcome['outcome']]>();
  const letGo = new Map<number, () => void>();
  let nextTick = START + schedule.tickEvery;
  const advance = (to: number) => {
    while (nextTick <= to) {
      clock = nextTick;
      buffer.tick();
      nextTick += schedule.tickEvery;
    }
    clock = to;
  };
  for (const action of actions(schedule, laneOnly)) {
    advance(action.at);
    if (action.kind === 'offer') {
      const key = `${action.run}:${action.k}`;
      const settler = {
        settled: (_: number, o: TrackOutcome) => applied.set(key, [clock, o.outcome]),
      };
      const lane = laneOnly === undefined ? schedule.runs[action.run]!.lane : 0;
      const o = buffer.offer(events[action.run]![action.k]!, 'behest', settler, 0, lane);
      if (!('held' in o && o.held === true)) applied.set(key, [clock, o.outcome]);
    } else if (action.kind === 'hold') {
      const hold = schedule.holds[action.hold]!;
      letGo.set(
        action.hold,
        buffer.holdFor(hold.lasts, laneOnly === undefined ? hold.lane : undefined),
      );
    } else letGo.get(action.hold)!();
  }
  advance(clock + 30 * WINDOW);
  return { applied, spans: exportedSpans(exporter) };
}

const scheduleArb = fc.integer({ min: 2, max: 4 }).chain((lanes) =>
  fc.record({
    lanes: fc.constant(lanes),
    runs: fc.array(
      fc.record({
        lane: fc.integer({ min: 0, max: lanes - 1 }),
        start: fc.integer({ min: 0, max: 4_000 }),
        step: fc.integer({ min: 5, max: 150 }),
        swaps: fc.uniqueArray(fc.integer({ min: 1, max: EVENTS - 3 }), { maxLength: 3 }),
      }),
      { minLength: 2, maxLength: 6 },
    ),
    stalls: fc.array(
      fc.record({
        lane: fc.integer({ min: 0, max: lanes - 1 }),
        at: fc.integer({ min: 0, max: 6_000 }),
        lasts: fc.integer({ min: 100, max: 8_000 }),
      }),
      { maxLength: 3 },
    ),
    holds: fc.array(
      fc.record({
        lane: fc.integer({ min: 0, max: lanes - 1 }),
        at: fc.integer({ min: 0, max: 6_000 }),
        lasts: fc.integer({ min: 100, max: 8_000 }),
        letGoAfter: fc.integer({ min: 50, max: 10_000 }),
      }),
      { maxLength: 3 },
    ),
    tickEvery: fc.integer({ min: 5, max: 400 }),
  }),
);

describe('lanes of the reorder buffer', () => {
  it('apply each lane’s events as a buffer of that lane alone does, whatever the other lanes wait for', () => {
    let appliedWhileAnotherWaited = 0;
    fc.assert(
      fc.property(scheduleArb, (schedule) => {
        const all = feed(schedule);
        const alone = [...Array(schedule.lanes).keys()].map((lane) => feed(schedule, lane));
        const expected = new Map(alone.flatMap((fed) => [...fed.applied]));
        expect(all.applied.size).toBe(schedule.runs.length * EVENTS);
        expect(new Map([...all.applied].sort())).toEqual(new Map([...expected].sort()));
        expect(all.spans).toEqual(alone.flatMap((fed) => fed.spans).sort());
        // Applied by time while another lane stood still or was held: one clock for all
        // lanes would have kept it waiting.
        for (const [key, [at]] of all.applied) {
          const run = schedule.runs[Number(key.split(':')[0])]!;
          const others = [...Array(schedule.lanes).keys()].filter((l) => l !== run.lane);
          const stalled = others.some((l) => through(schedule.stalls, l, at) < at - WINDOW);
          const held = schedule.holds.some(
            (h) =>
              h.lane !== run.lane &&
              at >= START + h.at &&
              at < START + h.at + Math.min(h.lasts, h.letGoAfter),
          );
          if (at < START + 20 * WINDOW && (stalled || held)) appliedWhileAnotherWaited += 1;
        }
      }),
      { numRuns: 150 },
    );
    expect(appliedWhileAnotherWaited).toBeGreaterThan(0);
  });
});
