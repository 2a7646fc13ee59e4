import { compareHrTime } from '../../events/hr-time.js';
import type { HrTime } from '../../events/hr-time.js';
import type { AgentEvent } from '../../events/agent-event.js';
import type { DialectName } from '../../events/dialect-name.js';
import type { TrackOutcome } from '../run-tracker.js';
import type { Printed } from './event-fingerprint.js';

// The events of one run held for reordering, as a binary min-heap by (time, arrival).

/** Told what became of a held event when its turn came (the input it came from is counted then). */
export interface Settler {
  settled(index: number, outcome: TrackOutcome): void;
}

/** An event held for reordering. */
export interface Held extends Printed {
  readonly event: AgentEvent;
  /** The event's run and time, read from it once. */
  readonly runId: string;
  readonly time: HrTime;
  readonly dialect: DialectName;
  /** Arrival order, which breaks ties between events of the same time. */
  readonly seq: number;
  readonly arrivedAt: number;
  readonly settler: Settler | undefined;
  /** The event's place among its input's events, for the settler. */
  readonly index: number;
}

export function compareHeld(a: Held, b: Held): number {
  return compareHrTime(a.time, b.time) || a.seq - b.seq;
}

export function push(heap: Held[], item: Held): void {
  heap.push(item);
  let i = heap.length - 1;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (compareHeld(heap[parent]!, item) <= 0) break;
    heap[i] = heap[parent]!;
    i = parent;
  }
  heap[i] = item;
}

export function pop(heap: Held[]): Held {
  const top = heap[0]!;
  const last = heap.pop()!;
  if (heap.length > 0) {
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child =
        right < heap.length && compareHeld(heap[right]!, heap[left]!) < 0 ? right : left;
      if (compareHeld(heap[child]!, last) >= 0) break;
      heap[i] = heap[child]!;
      i = child;
    }
    heap[i] = last;
  }
  return top;
}
