// A consumer that lost messages in flight (a NATS pull that failed: what the server sent into it
// comes back after the pull's expiry and the ack wait) tells the reorder buffer to hold: nothing is
// applied by time until then, so the lost events, older than events already held, take their
// places in their runs. Checked on generated losses (which events of a run, how long they take to
// come back, how often the buffer's timer runs): with the hold every event is applied and the run's
// spans are those of a run read in order; without it, the same arrivals leave events late.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseLine } from '../../../src/dialects/detect.js';
import type { AgentEvent } from '../../../src/events/agent-event.js';
import type { TrackOutcome } from '../../../src/mapping/run-tracker.js';
import { RUN_A, toolRun } from '../../helpers/behest-lines.js';
import { createWindowedMapping, exportedSpans } from '../../helpers/sink-mapping.js';

const events: AgentEvent[] = toolRun(RUN_A).map((line) => {
  const { result } = parseLine(line, 'behest');
  if (!result.ok) throw new Error(result.message);
  return result.events[0]!;
});

const WINDOW = 1_000;

interface Fed {
  readonly outcomes: TrackOutcome[];
  readonly spans: string[];
}

/**
 * Feeds the run: every event but the lost ones at 10 ms steps; the pull fails after the last of
 * them; the lost ones arrive `delay` ms later. The buffer's timer runs every `tickEvery` ms.
 */
function feed(lost: ReadonlySet<number>, delay: number, tickEvery: number, hold: boolean): Fed {
  let clock = 1_000_000;
  const { buffer, exporter } = createWindowedMapping(WINDOW, () => clock);
  const outcomes: TrackOutcome[] = [];
  const settler = { settled: (i: number, o: TrackOutcome) => (outcomes[i] = o) };
  let nextTick = clock + tickEvery;
  const advance = (to: number) => {
    while (nextTick <= to) {
      clock = nextTick;
      buffer.tick();
      nextTick += tickEvery;
    }
    clock = to;
  };
  const offer = (i: number) => {
    const o = buffer.offer(events[i]!, 'behest', settler, i);
    if (!('held' in o && o.held === true)) outcomes[i] = o;
  };
  events.forEach((_, i) => {
    if (lost.has(i)) return;
    advance(clock + 10);
    offer(i);
  });
  // The pull fails now: its messages come back after `delay`.
  if (hold) buffer.holdFor(delay + 500);
  advance(clock + delay);
  for (const i of lost) offer(i);
  advance(clock + 10 * WINDOW);
  return {
    outcomes,
    spans: exportedSpans(exporter),
  };
}

describe('holding for messages lost in flight', () => {
  it('applies every event in its run’s order, where without the hold some come late', () => {
    const inOrder = feed(new Set(), 0, 100, false);
    expect(inOrder.outcomes.every((o) => o.outcome === 'accepted')).toBe(true);
    expect(inOrder.spans).toHaveLength(6);
    fc.assert(
      fc.property(
        // Lost: some of the events before the last ones (what a failed pull held), never all.
        fc.uniqueArray(fc.integer({ min: 1, max: events.length - 3 }), {
          minLength: 1,
          maxLength: 4,
        }),
        fc.integer({ min: WINDOW + 100, max: 8_000 }),
        fc.integer({ min: 5, max: 700 }),
        (lostOnes, delay, tickEvery) => {
          const lost = new Set(lostOnes);
          const held = feed(lost, delay, tickEvery, true);
          expect(held.outcomes.map((o) => o.outcome)).toEqual(events.map(() => 'accepted'));
          expect(held.spans).toEqual(inOrder.spans);
          // The same arrivals without the hold, when the lost events come after the timer
          // applied later ones: some are late.
          if (delay > WINDOW + tickEvery + 200) {
            const unheld = feed(lost, delay, tickEvery, false);
            expect(unheld.outcomes.some((o) => o.outcome === 'late')).toBe(true);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('applies what it held at the next tick once the hold is let go of, not at the hold’s end', () => {
    const inOrder = feed(new Set(), 0, 100, false);
    fc.assert(
      fc.property(
        fc.integer({ min: 5, max: 700 }),
        fc.integer({ min: 0, max: 5_000 }),
        (tickEvery, heldFor) => {
          let clock = 1_000_000;
          const { buffer, exporter } = createWindowedMapping(WINDOW, () => clock);
          const tickAt = (to: number) => {
            clock = to;
            buffer.tick();
          };
          const letGo = buffer.holdFor(600_000);
          // Another consumer's hold, shorter, ends by itself meanwhile.
          buffer.holdFor(heldFor);
          const settler = { settled: () => undefined };
          events.forEach((event, i) => {
            tickAt(clock + 10);
            buffer.offer(event, 'behest', settler, i);
          });
          const end = clock + 10 * WINDOW;
          for (let t = clock; t <= end; t += tickEvery) tickAt(t);
          expect(exportedSpans(exporter)).toEqual([]);
          letGo();
          tickAt(clock + tickEvery);
          tickAt(clock + 10 * WINDOW);
          expect(exportedSpans(exporter)).toEqual(inOrder.spans);
        },
      ),
      { numRuns: 100 },
    );
  });
});
