// The fingerprints a run applied at its latest time decide whether a same-time event is a
// redelivery. Checked against a plain set on generated sequences of adds, lookups and clears,
// with few distinct fingerprints so that repeats, several at one time and clears all occur.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppliedPrints } from '../../../src/mapping/order/applied-prints.js';

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
            prints.add({ fingerprint: o.add });
            model.add(o.add);
          } else if ('has' in o) expect(prints.has(o.has)).toBe(model.has(o.has));
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
