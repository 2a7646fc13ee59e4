// What an instance makes of its routers' marks: nothing until it hears one (an instance without
// routers keeps its own clock), then the time the router had read its source to the end, its way
// here taken off; a router heard behind before any drain holds it where the instance started; its
// own clock again once no router was heard for the silence time, and the marks again when one is.
// Text that is not a mark changes nothing. Each partition is read on its own: a mark takes effect
// for a partition read past it, whatever the others.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BEHIND_MARK,
  MARK_TRANSIT_MILLIS,
  markAge,
  markText,
  RoutedClock,
  routedChannel,
  routedSubject,
} from '../../src/partitions/routed-marks.js';

describe('routed clock', () => {
  it('follows the marks while a router is heard, and the own clock before and after', () => {
    let now = 10_000;
    const reports: string[] = [];
    const clock = new RoutedClock({
      silenceMillis: 5_000,
      now: () => now,
      report: (m) => reports.push(m),
    });
    expect(clock.through()).toBe(Infinity);
    clock.heard('{"not":"a mark"}');
    clock.heard('garbage');
    clock.heard(JSON.stringify({ drained_ms_ago: -5 }));
    expect(clock.through()).toBe(Infinity);
    clock.heard(markText(40));
    expect(clock.through()).toBe(10_000 - 40 - MARK_TRANSIT_MILLIS);
    // An older mark arriving late never moves it back.
    now += 200;
    clock.heard(markText(900));
    expect(clock.through()).toBe(10_000 - 40 - MARK_TRANSIT_MILLIS);
    now += 5_000;
    expect(clock.through()).toBe(10_000 - 40 - MARK_TRANSIT_MILLIS);
    now += 1;
    expect(clock.through()).toBe(Infinity);
    expect(clock.through()).toBe(Infinity);
    expect(reports).toEqual([expect.stringContaining('no router heard for 5 s')]);
    clock.heard(markText(0));
    expect(clock.through()).toBe(now - MARK_TRANSIT_MILLIS);
    expect(reports).toHaveLength(2);
    expect(reports[1]).toContain('routing again');
    // Said once, not at every mark.
    clock.heard(markText(0));
    expect(reports).toHaveLength(2);
  });

  it('reads back the age it wrote, rounded and never negative', () => {
    // The wire names the docs give (scaling-out.md "Routers"): routers and instances of different
    // versions meet there.
    expect(routedChannel('behest:events')).toBe('behest:events:routed');
    expect(routedSubject('behest.events')).toBe('agent_otel_bridge.routed.behest.events');
    expect(markAge(markText(12.4))).toBe(12);
    expect(markAge(markText(-3))).toBe(0);
    expect(markAge('{"drained_ms_ago":"1"}')).toBeUndefined();
    expect(markAge('null')).toBeUndefined();
    expect(markAge(BEHIND_MARK)).toBe('behind');
    expect(markAge('{"behind":1}')).toBeUndefined();
    // Numbers JSON can spell but no router sends.
    expect(markAge('{"drained_ms_ago":1e999}')).toBeUndefined();
    expect(markAge('{"drained_ms_ago":-1}')).toBeUndefined();
    expect(markAge('{"drained_ms_ago":null}')).toBeUndefined();
  });

  it('holds still from its start when a router is heard behind before it reads to the end', () => {
    let now = 50_000;
    const reports: string[] = [];
    const clock = new RoutedClock({
      silenceMillis: 5_000,
      now: () => now,
      report: (m) => reports.push(m),
    });
    now += 2_000;
    expect(clock.through()).toBe(Infinity);
    clock.heard(BEHIND_MARK);
    expect(clock.through()).toBe(50_000);
    // Behind marks keep the router heard without moving the time; a drain mark moves it.
    now += 4_000;
    clock.heard(BEHIND_MARK);
    now += 4_000;
    expect(clock.through()).toBe(50_000);
    clock.heard(markText(30));
    expect(clock.through()).toBe(now - 30 - MARK_TRANSIT_MILLIS);
    const drained = clock.through();
    now += 1_000;
    clock.heard(BEHIND_MARK);
    expect(clock.through()).toBe(drained);
    expect(reports).toEqual([]);
  });

  it('puts a drain mark in effect only once the partitions were read to their end after it was heard', () => {
    let now = 70_000;
    let readSince = -Infinity;
    const clock = new RoutedClock({
      silenceMillis: 60_000,
      now: () => now,
      report: () => undefined,
      readSince: () => readSince,
    });
    clock.heard(BEHIND_MARK);
    now += 500;
    clock.heard(markText(20));
    const first = now - 20 - MARK_TRANSIT_MILLIS;
    // No read yet: the time stays where listening began.
    expect(clock.through()).toBe(70_000);
    now += 300;
    clock.heard(markText(0));
    const second = now - MARK_TRANSIT_MILLIS;
    // A read sent in the millisecond the first mark was heard may have been sent before it.
    readSince = 70_500;
    expect(clock.through()).toBe(70_000);
    readSince = 70_501;
    expect(clock.through()).toBe(first);
    readSince = now + 1;
    expect(clock.through()).toBe(second);
    // A read to the end never moves it past the marks heard.
    readSince = now + 10_000;
    now += 10_000;
    expect(clock.through()).toBe(second);
  });

  it('keeps at most a bounded number of marks waiting, each taking effect no earlier than heard', () => {
    let now = 1_000;
    let readSince = -Infinity;
    const clock = new RoutedClock({
      silenceMillis: 60_000,
      now: () => now,
      report: () => undefined,
      readSince: () => readSince,
    });
    const heardAt: number[] = [];
    for (let k = 0; k < 10_000; k += 1) {
      now += 1;
      heardAt.push(now);
      clock.heard(markText(0));
    }
    // However many wait, the waiting ones are taken as one only towards the later: reading past
    // the 5 000th mark puts no later mark in effect.
    readSince = heardAt[4_999]! + 1;
    const through = clock.through();
    expect(through).toBeLessThanOrEqual(heardAt[4_999]! - MARK_TRANSIT_MILLIS);
    readSince = now + 1;
    expect(clock.through()).toBe(now - MARK_TRANSIT_MILLIS);
    expect(through).toBeLessThan(clock.through());
  });

  it('counts a drain mark from the last time the process was free before it handled the mark', () => {
    let now = 20_000;
    let freeAt = 20_000;
    const clock = new RoutedClock({
      silenceMillis: 60_000,
      now: () => now,
      report: () => undefined,
      arrivedAfter: () => freeAt,
    });
    // Busy for 3 s: the mark waited in the socket, and says nothing of those 3 s.
    now += 3_000;
    clock.heard(markText(40));
    expect(clock.through()).toBe(20_000 - 40 - MARK_TRANSIT_MILLIS);
    // Free again: a mark handled at once counts from now.
    freeAt = now + 10;
    now += 10;
    clock.heard(markText(40));
    expect(clock.through()).toBe(now - 40 - MARK_TRANSIT_MILLIS);
  });

  it('puts a drain mark in effect for each partition read past it, whatever the others', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 5 }),
        fc.array(
          fc.oneof(
            fc.record({
              after: fc.integer({ min: 0, max: 50 }),
              age: fc.integer({ min: 0, max: 500 }),
            }),
            fc.record({
              after: fc.integer({ min: 0, max: 50 }),
              partition: fc.integer({ min: 0, max: 4 }),
              // A read sent this long ago took all there was.
              sentAgo: fc.integer({ min: 0, max: 30 }),
            }),
          ),
          { maxLength: 120 },
        ),
        (partitions, steps) => {
          let now = 50_000;
          const readSince = new Array<number>(partitions).fill(-Infinity);
          const clock = new RoutedClock({
            silenceMillis: 60_000,
            now: () => now,
            report: () => undefined,
            readSince: (p) => (p === undefined ? Math.min(...readSince) : readSince[p]!),
          });
          const marks: { heardAt: number; drainedAt: number }[] = [];
          const model = (since: number) => {
            const passed = marks.filter((m) => m.heardAt < since).map((m) => m.drainedAt);
            return passed.length === 0 ? 50_000 : Math.max(...passed);
          };
          clock.heard(BEHIND_MARK);
          for (const step of steps) {
            now += step.after;
            if ('age' in step) {
              // Fewer than the marks kept waiting: none are taken as one.
              if (marks.length >= 60) continue;
              clock.heard(markText(step.age));
              marks.push({ heardAt: now, drainedAt: now - step.age - MARK_TRANSIT_MILLIS });
            } else {
              const p = step.partition % partitions;
              readSince[p] = Math.max(readSince[p]!, now - step.sentAgo);
            }
            expect(clock.through()).toBe(model(Math.min(...readSince)));
            for (let p = 0; p < partitions; p += 1) {
              expect(clock.through(p)).toBe(model(readSince[p]!));
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
