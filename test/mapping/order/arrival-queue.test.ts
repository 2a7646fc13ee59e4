// The arrival queue against a plain array on generated pushes, shifts, peeks and clears, in bursts
// long enough to fill blocks, chain new ones, let consumed ones go and empty the queue between.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ArrivalQueue } from '../../../src/mapping/order/arrival-queue.js';

type Op = { kind: 'push'; count: number } | { kind: 'shift'; count: number } | { kind: 'clear' };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant('push'), count: fc.integer({ min: 1, max: 2500 }) }),
  },
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant('shift'), count: fc.integer({ min: 1, max: 2500 }) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('clear') }) },
);

describe('ArrivalQueue', () => {
  it('gives back what a plain array would, across blocks, emptied and filled again', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), fc.double({ min: 0, max: 1e13 }), (ops, t0) => {
        const queue = new ArrivalQueue();
        const model: [string, number][] = [];
        let next = 0;
        for (const o of ops) {
          if (o.kind === 'clear') {
            queue.clear();
            model.length = 0;
          } else if (o.kind === 'push') {
            for (let i = 0; i < o.count; i += 1) {
              // Clock milliseconds with a fraction: kept exactly, not rounded.
              const at = t0 + next * 0.25;
              queue.push(`run-${next}`, at);
              model.push([`run-${next}`, at]);
              next += 1;
            }
          } else {
            for (let i = 0; i < o.count; i += 1) {
              expect(queue.firstArrivedAt()).toBe(model[0]?.[1]);
              expect(queue.shift()).toBe(model.shift()?.[0]);
            }
          }
          expect(queue.length).toBe(model.length);
          expect(queue.firstArrivedAt()).toBe(model[0]?.[1]);
        }
        while (model.length > 0) expect(queue.shift()).toBe(model.shift()![0]);
        expect(queue.shift()).toBeUndefined();
        expect(queue.firstArrivedAt()).toBeUndefined();
        expect(queue.length).toBe(0);
      }),
      { numRuns: 200 },
    );
  });

  it('keeps no reference to a run id it gave back, nor to a block it has passed', () => {
    const queue = new ArrivalQueue();
    for (let i = 0; i < 5000; i += 1) queue.push(`run-${i}`, i);
    for (let i = 0; i < 4999; i += 1) queue.shift();
    const inner = queue as unknown as {
      head: { runIds: unknown[]; next: unknown };
      spare: { runIds: unknown[] } | undefined;
    };
    // One entry is left, in the last block; the blocks passed are gone but one kept empty.
    expect(inner.head.runIds.filter((s) => s !== undefined)).toEqual(['run-4999']);
    expect(inner.head.next).toBeUndefined();
    expect(inner.spare?.runIds.every((s) => s === undefined)).toBe(true);
  });
});
