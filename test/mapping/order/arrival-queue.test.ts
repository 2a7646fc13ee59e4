// The arrival queue against a plain array on generated pushes, shifts, peeks and clears, in bursts
// long enough to fill blocks, chain new ones, let consumed ones go and empty the queue between.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectQueueLikeArray, queueOps } from '../../helpers/queue-ops.js';
import { ArrivalQueue } from '../../../src/mapping/order/arrival-queue.js';

describe('ArrivalQueue', () => {
  it('gives back what a plain array would, across blocks, emptied and filled again', () => {
    fc.assert(
      fc.property(
        fc.array(queueOps(2500), { maxLength: 40 }),
        fc.double({ min: 0, max: 1e13 }),
        (ops, t0) => {
          const arrivals = new ArrivalQueue();
          expectQueueLikeArray<readonly [string, number]>(
            ops,
            {
              get length() {
                return arrivals.length;
              },
              push: ([runId, at]) => arrivals.push(runId, at),
              peek: () => arrivals.firstArrivedAt(),
              shift: () => arrivals.shift(),
              clear: () => arrivals.clear(),
            },
            // Clock milliseconds with a fraction: kept exactly, not rounded.
            (n) => [`run-${n}`, t0 + n * 0.25],
            { peeked: (first) => first?.[1], shifted: (first) => first?.[0] },
          );
        },
      ),
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
