import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { HrTime } from '@opentelemetry/api';
import { compareHeld } from '../../../src/mapping/order/held-heap.js';
import type { Held } from '../../../src/mapping/order/held-heap.js';
import { HeldEvents } from '../../../src/mapping/order/held-events.js';
import type { AgentEvent } from '../../../src/events/agent-event.js';

// The held events of one run against a model (a plain list sorted by time, then arrival), on
// generated operations: events mostly in order, some displaced, some at the same time (storms of
// them too), taken one at a time or all at once, across the compaction of the in-order list's
// front.

let seq = 0;
/**
 * A fingerprint covers the event's time (as `eventFingerprint` does): made here of both, one to
 * one (prints go up to 12, so events of two times never share a fingerprint).
 */
const printOf = (time: HrTime, print: number) => (time[0] * 2 + time[1]) * 16 + print;

function held(seconds: number, nanos: number, print: number): Held {
  const time: HrTime = [seconds, nanos];
  const fingerprint = print < 0 ? print : printOf(time, print);
  seq += 1;
  return {
    event: { type: 'TextDelta', runId: 'r', time, text: '' } as unknown as AgentEvent,
    runId: 'r',
    time,
    dialect: 'behest',
    seq,
    arrivedAt: seq,
    fingerprint,
    settler: undefined,
    index: 0,
  };
}

const op = fc.oneof(
  // An event after the last one held: the usual arrival.
  { weight: 6, arbitrary: fc.record({ ahead: fc.integer({ min: 0, max: 3 }), print: fc.nat(5) }) },
  // An event at any time: displaced, or at the same time as others.
  { weight: 2, arbitrary: fc.record({ at: fc.integer({ min: 0, max: 60 }), print: fc.nat(5) }) },
  // A storm: many events at the time of the last one held (deltas sharing a timestamp).
  {
    weight: 1,
    arbitrary: fc.record({ storm: fc.array(fc.nat(12), { minLength: 10, maxLength: 40 }) }),
  },
  { weight: 4, arbitrary: fc.constant({ take: true as const }) },
  { weight: 2, arbitrary: fc.record({ ask: fc.integer({ min: 0, max: 60 }), print: fc.nat(5) }) },
  // The time and fingerprint of an event held now or taken already.
  { weight: 2, arbitrary: fc.record({ askHeld: fc.nat() }) },
  { weight: 1, arbitrary: fc.constant({ takeAll: true as const }) },
);

describe('HeldEvents', () => {
  it('takes held events earliest first by time then arrival, and knows which are held, like a sorted list', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 400 }), (ops) => {
        const events = new HeldEvents();
        let model: Held[] = [];
        const taken: Held[] = [];
        let clock = 0;
        for (const o of ops) {
          if ('ahead' in o) {
            clock += o.ahead;
            const h = held(1000 + clock, o.ahead % 2, o.print);
            events.add(h);
            model.push(h);
          } else if ('storm' in o) {
            for (const print of o.storm) {
              const h = held(1000 + clock, 0, print);
              events.add(h);
              model.push(h);
            }
          } else if ('at' in o) {
            const h = held(1000 + o.at, 0, o.print);
            events.add(h);
            model.push(h);
          } else if ('take' in o) {
            model.sort(compareHeld);
            expect(events.peek()).toBe(model[0]);
            const h = model.shift();
            expect(events.shift()).toBe(h);
            if (h !== undefined) taken.push(h);
          } else if ('ask' in o) {
            const time: HrTime = [1000 + o.ask, 0];
            const print = printOf(time, o.print);
            const expected = model.some(
              (h) =>
                h.event.time[0] === time[0] && h.event.time[1] === 0 && h.fingerprint === print,
            );
            expect(events.has(time, { fingerprint: print })).toBe(expected);
          } else if ('askHeld' in o) {
            const seen = [...model, ...taken.slice(-20)];
            const h = seen[o.askHeld % Math.max(1, seen.length)];
            if (h !== undefined)
              expect(events.has(h.event.time, h)).toBe(
                model.some((m) => m.fingerprint === h.fingerprint),
              );
          } else {
            model.sort(compareHeld);
            expect(events.takeAll()).toEqual(model);
            model = [];
          }
          expect(events.length).toBe(model.length);
        }
        model.sort(compareHeld);
        expect(events.takeAll()).toEqual(model);
        expect(events.length).toBe(0);
        expect(events.peek()).toBeUndefined();
      }),
      {
        numRuns: 300,
        examples: [
          // A storm's print of 8 once gave an event of another time the fingerprint of one taken.
          [
            [
              { ahead: 3, print: 0 },
              { at: 4, print: 0 },
              { take: true },
              { storm: [0, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0] },
              { ahead: 0, print: 0 },
              { take: true },
              { askHeld: 1681118738 },
            ],
          ],
        ],
      },
    );
  });

  it('puts displaced events in place near the latest held and on the heap beyond, taken earliest first either way', () => {
    // Long runs of held events (the reorder window in events), each event displaced by a
    // generated number of positions: none, a few (put in place among the latest held), past the
    // latest few dozen (the heap), or before everything held (the front, after some were taken).
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            back: fc.oneof(
              { weight: 4, arbitrary: fc.constant(0) },
              { weight: 4, arbitrary: fc.integer({ min: 1, max: 40 }) },
              { weight: 1, arbitrary: fc.integer({ min: 41, max: 400 }) },
            ),
            takes: fc.oneof(
              { weight: 5, arbitrary: fc.constant(0) },
              { weight: 1, arbitrary: fc.integer({ min: 1, max: 30 }) },
            ),
          }),
          { minLength: 50, maxLength: 600 },
        ),
        (steps) => {
          const events = new HeldEvents();
          const model: Held[] = [];
          let latest = 10_000;
          for (const { back, takes } of steps) {
            latest += 1;
            // `back` positions before the latest of those held now, or before all of them.
            model.sort(compareHeld);
            const before = model[model.length - 1 - back];
            const time: HrTime =
              back === 0 || model.length === 0
                ? [latest, 0]
                : before === undefined
                  ? [model[0]!.event.time[0] - 1, 0]
                  : [before.event.time[0], before.event.time[1] === 0 ? 1 : 0];
            const h = held(time[0], time[1], 1);
            events.add(h);
            model.push(h);
            model.sort(compareHeld);
            for (let t = 0; t < takes && model.length > 0; t += 1) {
              expect(events.shift()).toBe(model.shift());
            }
            expect(events.length).toBe(model.length);
            expect(events.peek()).toBe(model[0]);
            expect(events.has(h.event.time, h)).toBe(
              model.some((m) => m.fingerprint === h.fingerprint),
            );
          }
          expect(events.takeAll()).toEqual(model);
          expect(events.length).toBe(0);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('holds a long run in order across the compaction of its front, and any order at once', () => {
    const events = new HeldEvents();
    const taken: number[] = [];
    for (let i = 0; i < 3000; i += 1) {
      events.add(held(i, 0, i));
      if (i % 3 !== 2) taken.push(events.shift()!.event.time[0]);
    }
    // A displaced one, earlier than everything still held, comes out first.
    events.add(held(0, 1, -1));
    taken.push(events.shift()!.fingerprint);
    for (let h = events.shift(); h !== undefined; h = events.shift()) taken.push(h.event.time[0]);
    expect(taken.slice(0, 2)).toEqual([0, 1]);
    expect(taken.indexOf(-1)).toBe(2000);
    expect(taken.filter((f) => f !== -1)).toEqual(Array.from({ length: 3000 }, (_, i) => i));

    // Reversed arrivals: every one displaced; still earliest first.
    const reversed = new HeldEvents();
    for (let i = 2000; i > 0; i -= 1) reversed.add(held(i, 0, i));
    expect(reversed.takeAll().map((h) => h.event.time[0])).toEqual(
      Array.from({ length: 2000 }, (_, i) => i + 1),
    );
  });

  it('knows the events of a storm sharing one timestamp, as they are taken, twice-held ones too', () => {
    const events = new HeldEvents();
    const storm = Array.from({ length: 50 }, (_, i) => held(7, 0, i % 20));
    for (const h of storm) events.add(h);
    // A walk past the first few of them counts the in-order events by fingerprint from here on.
    expect(events.has([7, 0], { fingerprint: printOf([7, 0], 19) })).toBe(true);
    expect(events.has([7, 0], { fingerprint: printOf([7, 0], 20) })).toBe(false);
    // One more of that time, held while they are counted: known at once.
    events.add(held(7, 0, 20));
    expect(events.has([7, 0], { fingerprint: printOf([7, 0], 20) })).toBe(true);
    for (let i = 0; i < 25; i += 1) events.shift();
    // Prints 0-4 were held three times (i, i + 20, i + 40), now once: still held.
    for (let p = 0; p < 20; p += 1)
      expect(events.has([7, 0], { fingerprint: printOf([7, 0], p) })).toBe(true);
    for (let i = 0; i < 26; i += 1) events.shift();
    expect(events.length).toBe(0);
    expect(events.has([7, 0], { fingerprint: printOf([7, 0], 0) })).toBe(false);
    // Emptied: the next storm is walked again, and counted again once that takes long.
    events.add(held(8, 0, 1));
    expect(events.has([8, 0], { fingerprint: printOf([8, 0], 1) })).toBe(true);
    expect(events.has([7, 0], { fingerprint: printOf([7, 0], 1) })).toBe(false);
    // Two displaced copies of one event: known until the second is taken, not after.
    events.add(held(5, 0, 3));
    events.add(held(5, 0, 3));
    expect(events.shift()!.event.time[0]).toBe(5);
    expect(events.has([5, 0], { fingerprint: printOf([5, 0], 3) })).toBe(true);
    expect(events.shift()!.event.time[0]).toBe(5);
    expect(events.has([5, 0], { fingerprint: printOf([5, 0], 3) })).toBe(false);
  });
});
