// Counted fingerprints against a plain count per fingerprint, on generated adds and deletes of a
// few fingerprints (so that copies of one are held, let go and held again).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PrintCounts } from '../../../src/mapping/order/print-counts.js';

describe('PrintCounts', () => {
  it('knows a fingerprint until every held copy of it is let go, like a count per fingerprint', () => {
    const print = fc.oneof(fc.nat(4), fc.constant(2 ** 52 + 3), fc.constant(-1));
    fc.assert(
      fc.property(
        fc.array(fc.record({ add: fc.boolean(), print }), { maxLength: 300 }),
        fc.array(print, { minLength: 1, maxLength: 8 }),
        (ops, asked) => {
          const counts = new PrintCounts();
          const model = new Map<number, number>();
          for (const { add, print: p } of ops) {
            const held = model.get(p) ?? 0;
            // Only what is held is let go, as held events are.
            if (add) {
              counts.add(p);
              model.set(p, held + 1);
            } else if (held > 0) {
              counts.delete(p);
              model.set(p, held - 1);
            }
            for (const q of [p, ...asked]) expect(counts.has(q)).toBe((model.get(q) ?? 0) > 0);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
