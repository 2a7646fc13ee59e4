// The reorder buffer's holds, against a model on generated sequences: holds added with ends of
// their own, some let go of early (some twice), asked at times that only move forward. A hold is
// on until its end or until it is let go of, whichever comes first, whatever the others do.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Holds } from '../../../src/mapping/order/holds.js';

type Step =
  | { readonly kind: 'add'; readonly length: number }
  | { readonly kind: 'letGo'; readonly which: number }
  | { readonly kind: 'ask'; readonly after: number };

const steps = fc.array(
  fc.oneof(
    fc.record({ kind: fc.constant('add' as const), length: fc.integer({ min: 0, max: 500 }) }),
    fc.record({ kind: fc.constant('letGo' as const), which: fc.nat() }),
    fc.record({ kind: fc.constant('ask' as const), after: fc.integer({ min: 0, max: 200 }) }),
  ),
  { maxLength: 80 },
);

describe('holds', () => {
  it('are on while one added is neither ended nor let go of', () => {
    fc.assert(
      fc.property(steps, (script: Step[]) => {
        const holds = new Holds();
        const model: { until: number; letGo: boolean; release: () => void }[] = [];
        let now = 0;
        for (const step of script) {
          if (step.kind === 'add')
            model.push({
              until: now + step.length,
              letGo: false,
              release: holds.add(now + step.length),
            });
          else if (step.kind === 'letGo' && model.length > 0) {
            const hold = model[step.which % model.length]!;
            hold.release();
            hold.letGo = true;
          } else if (step.kind === 'ask') {
            now += step.after;
            const expected = model.some((h) => !h.letGo && now < h.until);
            expect(holds.on(now)).toBe(expected);
          }
        }
      }),
      { numRuns: 500 },
    );
  });
});
