// The queue against a plain array on generated pushes, shifts, peeks and clears, in bursts long
// enough to make the ring grow, wrap around and shrink again.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Fifo } from '../../../src/mapping/order/fifo.js';

type Op = { kind: 'push'; count: number } | { kind: 'shift'; count: number } | { kind: 'clear' };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant('push'), count: fc.integer({ min: 1, max: 200 }) }),
  },
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant('shift'), count: fc.integer({ min: 1, max: 200 }) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('clear') }) },
);

describe('Fifo', () => {
  it('gives back what a plain array would, through growth, wrap-around and shrinking', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const queue = new Fifo<number>();
        const model: number[] = [];
        let next = 0;
        for (const o of ops) {
          if (o.kind === 'clear') {
            queue.clear();
            model.length = 0;
          } else if (o.kind === 'push') {
            for (let i = 0; i < o.count; i += 1) {
              queue.push(next);
              model.push(next);
              next += 1;
            }
          } else {
            for (let i = 0; i < o.count; i += 1) {
              expect(queue.peek()).toBe(model[0]);
              expect(queue.shift()).toBe(model.shift());
            }
          }
          expect(queue.length).toBe(model.length);
          expect(queue.peek()).toBe(model[0]);
        }
        while (model.length > 0) expect(queue.shift()).toBe(model.shift());
        expect(queue.shift()).toBeUndefined();
        expect(queue.peek()).toBeUndefined();
      }),
      { numRuns: 400 },
    );
  });

  it('keeps no reference to what it gave back', () => {
    const queue = new Fifo<object>();
    queue.push({});
    queue.push({});
    queue.shift();
    // The slot of the taken item is emptied: the ring holds only the one item left.
    const slots = (queue as unknown as { items: unknown[] }).items;
    expect(slots.filter((s) => s !== undefined)).toHaveLength(1);
  });
});
