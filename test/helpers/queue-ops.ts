// Generated operations on a first-in first-out queue, and the check that holds a queue to a plain
// array through them: pushes and shifts in bursts of up to `maxBurst`, and now and then a clear.
import fc from 'fast-check';
import { expect } from 'vitest';

export type QueueOp =
  { kind: 'push'; count: number } | { kind: 'shift'; count: number } | { kind: 'clear' };

export function queueOps(maxBurst: number): fc.Arbitrary<QueueOp> {
  const count = fc.integer({ min: 1, max: maxBurst });
  return fc.oneof(
    { weight: 5, arbitrary: fc.record({ kind: fc.constant('push' as const), count }) },
    { weight: 5, arbitrary: fc.record({ kind: fc.constant('shift' as const), count }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('clear' as const) }) },
  );
}

/** A queue as the check drives it: `peek` and `shift` answer what the view makes of an item. */
export interface QueueUnderTest<T> {
  readonly length: number;
  push(item: T): void;
  peek(): unknown;
  shift(): unknown;
  clear(): void;
}

/** What `peek` and `shift` should answer for the first item (undefined: the queue is empty). */
export interface QueueView<T> {
  peeked(first: T | undefined): unknown;
  shifted(first: T | undefined): unknown;
}

const ITSELF: QueueView<never> = { peeked: (first) => first, shifted: (first) => first };

/**
 * Runs `ops` on `queue` and on a plain array, pushing `item(n)` for the n-th push: after every
 * operation and through the final drain, both must answer alike.
 */
export function expectQueueLikeArray<T>(
  ops: readonly QueueOp[],
  queue: QueueUnderTest<T>,
  item: (n: number) => T,
  view: QueueView<T> = ITSELF,
): void {
  const model: T[] = [];
  let next = 0;
  for (const o of ops) {
    if (o.kind === 'clear') {
      queue.clear();
      model.length = 0;
    } else if (o.kind === 'push') {
      for (let i = 0; i < o.count; i += 1) {
        const pushed = item(next);
        queue.push(pushed);
        model.push(pushed);
        next += 1;
      }
    } else {
      for (let i = 0; i < o.count; i += 1) {
        expect(queue.peek()).toBe(view.peeked(model[0]));
        expect(queue.shift()).toBe(view.shifted(model.shift()));
      }
    }
    expect(queue.length).toBe(model.length);
    expect(queue.peek()).toBe(view.peeked(model[0]));
  }
  while (model.length > 0) expect(queue.shift()).toBe(view.shifted(model.shift()));
  expect(queue.shift()).toBeUndefined();
  expect(queue.peek()).toBeUndefined();
  expect(queue.length).toBe(0);
}
