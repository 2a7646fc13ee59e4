import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { RecencyList } from '../../src/mapping/recency-list.js';
import type { Recent } from '../../src/mapping/recency-list.js';

interface Item extends Recent<Item> {
  readonly id: number;
}

// The open runs' order of activity (capacity ends the least recent, the idle sweep walks from
// it) against a model: a plain array in which each use moves an item to the end.
describe('RecencyList', () => {
  it('keeps items least recently used first, as moving each used item to the end of an array does', () => {
    const op = fc.record({
      kind: fc.constantFrom('add', 'use', 'remove', 'sweep'),
      pick: fc.nat(),
    });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), (ops) => {
        const list = new RecencyList<Item>();
        let model: Item[] = [];
        let next = 0;
        for (const { kind, pick } of ops) {
          const item = model[pick % Math.max(1, model.length)];
          if (kind === 'add' || item === undefined) {
            const added: Item = { id: (next += 1), lessRecent: undefined, moreRecent: undefined };
            list.add(added);
            model.push(added);
          } else if (kind === 'use') {
            list.use(item);
            model = [...model.filter((m) => m !== item), item];
          } else if (kind === 'remove') {
            list.remove(item);
            model = model.filter((m) => m !== item);
          } else {
            // Taking items out while walking, as the idle sweep does: every other one.
            let k = 0;
            for (const walked of list) if ((k += 1) % 2 === 0) list.remove(walked);
            model = model.filter((_, i) => (i + 1) % 2 !== 0);
          }
          expect([...list].map((m) => m.id)).toEqual(model.map((m) => m.id));
          expect(list.leastRecent).toBe(model[0]);
        }
      }),
      { numRuns: 300 },
    );
  });
});
