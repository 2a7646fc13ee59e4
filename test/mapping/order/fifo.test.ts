// The queue against a plain array on generated pushes, shifts, peeks and clears, in bursts long
// enough to make the ring grow, wrap around and shrink again.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectQueueLikeArray, queueOps } from '../../helpers/queue-ops.js';
import { Fifo } from '../../../src/mapping/order/fifo.js';

describe('Fifo', () => {
  it('gives back what a plain array would, through growth, wrap-around and shrinking', () => {
    fc.assert(
      fc.property(fc.array(queueOps(200), { maxLength: 60 }), (ops) =>
        expectQueueLikeArray(ops, new Fifo<number>(), (n) => n),
      ),
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
