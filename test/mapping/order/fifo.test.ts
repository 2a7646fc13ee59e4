import { describe, expect, it } from 'vitest';
import { Fifo } from '../../../src/mapping/order/fifo.js';

describe('Fifo', () => {
  it('gives items back in order across the compaction of its front', () => {
    const queue = new Fifo<number>();
    const taken: number[] = [];
    for (let i = 0; i < 5000; i += 1) {
      queue.push(i);
      // Take two of every three: the front is cut off several times on the way.
      if (i % 3 !== 2) taken.push(queue.shift()!);
    }
    expect(queue.length).toBe(5000 - taken.length);
    while (queue.length > 0) taken.push(queue.shift()!);
    expect(taken).toEqual(Array.from({ length: 5000 }, (_, i) => i));
    expect(queue.shift()).toBeUndefined();
    expect(queue.peek()).toBeUndefined();
  });

  it('peeks without taking, and is empty after clear', () => {
    const queue = new Fifo<string>();
    queue.push('a');
    queue.push('b');
    expect(queue.peek()).toBe('a');
    expect(queue.length).toBe(2);
    queue.clear();
    expect(queue.length).toBe(0);
    queue.push('c');
    expect(queue.shift()).toBe('c');
  });
});
