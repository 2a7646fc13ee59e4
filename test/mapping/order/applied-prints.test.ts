// The fingerprints a run applied at its latest time decide whether a same-time event is a
// redelivery. Checked against a plain set on generated sequences of adds, lookups and clears,
// with few distinct fingerprints so that repeats, several at one time and clears all occur.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/events/agent-event.js';
import { AppliedPrints } from '../../../src/mapping/order/applied-prints.js';
import { eventFingerprint } from '../../../src/mapping/order/event-fingerprint.js';

/** Seven events of one run and one time, told apart by their text; `add: n` adds the n-th. */
const EVENTS = Array.from(
  { length: 7 },
  (_, n) =>
    ({ type: 'TextDelta', runId: 'r', time: [1, 0], delta: `part ${n}` }) as unknown as AgentEvent,
);
const PRINTS = EVENTS.map(eventFingerprint);

const op = fc.oneof(
  { weight: 5, arbitrary: fc.record({ add: fc.integer({ min: 0, max: 6 }) }) },
  { weight: 4, arbitrary: fc.record({ has: fc.integer({ min: 0, max: 6 }) }) },
  { weight: 1, arbitrary: fc.constant({ clear: true }) },
);

describe('AppliedPrints', () => {
  it('answers as a set of the fingerprints added since the last clear', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const prints = new AppliedPrints();
        const model = new Set<number>();
        for (const o of ops) {
          if ('add' in o) {
            prints.add({ event: EVENTS[o.add]!, fingerprint: PRINTS[o.add]! });
            model.add(o.add);
          } else if ('has' in o) expect(prints.has(PRINTS[o.has]!)).toBe(model.has(o.has));
          else {
            prints.clear();
            model.clear();
          }
          expect(prints.size).toBe(model.size);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
