// One budget per collector outage, shared by every export held through it; a short one for an
// address where nothing has ever answered.
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  isNotSent,
  isUnreachable,
  Outage,
  PROBE_GAP_MILLIS,
  UNREACHABLE_HOLD_MILLIS,
} from '../../src/telemetry/export/outage.js';

const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), {
  code: 'ECONNREFUSED',
});
const unavailable = Object.assign(new Error('Service Unavailable'), { code: 503 });

function clocked(hold: number) {
  let now = 0;
  const started: (Error | undefined)[] = [];
  const outage = new Outage(
    hold,
    (e) => started.push(e),
    () => now,
  );
  return { outage, started, at: (t: number) => (now = t) };
}

describe('Outage', () => {
  it('gives every export of one outage the same deadline, from its start', () => {
    const { outage, started, at } = clocked(60_000);
    outage.succeeded(); // the collector was reached before
    at(1000);
    outage.failed(1000, unavailable);
    at(30_000);
    // A second export failing later in the same outage does not get a budget of its own.
    outage.failed(29_000, unavailable);
    expect(outage.remaining()).toBe(31_000);
    expect(started).toEqual([unavailable]); // said once
    at(61_000);
    expect(outage.remaining()).toBe(0);
  });

  it('holds only briefly where nothing has ever answered, fully once something did', () => {
    const { outage, at } = clocked(60_000);
    at(0);
    outage.failed(0, refused);
    expect(outage.remaining()).toBe(UNREACHABLE_HOLD_MILLIS);
    const probed = clocked(60_000);
    probed.outage.reachable();
    probed.outage.failed(0, refused);
    expect(probed.outage.remaining()).toBe(60_000);
    const answered = clocked(60_000);
    answered.outage.failed(0, unavailable);
    answered.outage.failed(10, refused); // it answered once: a restart, not a wrong address
    expect(answered.outage.remaining()).toBe(60_000 - 0);
  });

  it('learns nothing of the collector from an export the exporter did not send', () => {
    const busy = new Error('Concurrent export limit reached');
    expect(isNotSent(busy)).toBe(true);
    expect(isNotSent(refused)).toBe(false);
    expect(isNotSent(Object.assign(new Error('Nothing to send'), { code: 503 }))).toBe(false);
    const { outage, at } = clocked(60_000);
    at(0);
    outage.failed(0, busy);
    at(100);
    outage.failed(100, refused);
    // Nothing ever answered: the short hold, from the outage's start.
    expect(outage.remaining()).toBe(UNREACHABLE_HOLD_MILLIS - 100);
    // And the error it says is the collector's, not the exporter's.
    expect(outage.error()).toBe(refused);
  });

  describe('with timers', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it('gives up the exports it holds when a budget that shrank is spent', () => {
      vi.useFakeTimers();
      const { outage, at } = clocked(60_000);
      at(0);
      let givenUp = 0;
      outage.hold(() => (givenUp += 1));
      outage.failed(0, new Error('Concurrent export limit reached'));
      // Then nothing is found listening: the budget shrinks to the short hold.
      at(100);
      outage.failed(100, refused);
      vi.advanceTimersByTime(UNREACHABLE_HOLD_MILLIS - 100 - 1);
      expect(givenUp).toBe(0);
      at(UNREACHABLE_HOLD_MILLIS);
      vi.advanceTimersByTime(1);
      expect(givenUp).toBe(1);
    });
  });

  it('fails exports at once when the budget is spent, but lets one try every probe gap', () => {
    const { outage, at } = clocked(1000);
    outage.reachable();
    outage.failed(0, unavailable);
    at(2000);
    outage.failed(1500, unavailable); // the last attempt ended now
    expect(outage.spent()).toBe(unavailable);
    at(2000 + PROBE_GAP_MILLIS);
    expect(outage.spent()).toBeUndefined(); // this one tries
    expect(outage.spent()).toBe(unavailable);
    outage.succeeded();
    expect(outage.spent()).toBeUndefined();
    expect(outage.remaining()).toBe(Number.POSITIVE_INFINITY);
  });

  it('tells a wrong address from a collector that answered', () => {
    expect(isUnreachable(refused)).toBe(true);
    expect(isUnreachable(Object.assign(new Error('x'), { code: 'ENOTFOUND' }))).toBe(true);
    expect(isUnreachable(Object.assign(new Error('x'), { code: 'ECONNRESET' }))).toBe(false);
    expect(isUnreachable(unavailable)).toBe(false);
    expect(isUnreachable(undefined)).toBe(false);
  });
});
