import { ArrivalQueue } from './arrival-queue.js';
import { Fifo } from './fifo.js';
import { Holds } from './holds.js';

/** A run (`R`: its state in the buffer) whose terminal event arrived, in its grace period. */
export interface Closing<R> {
  readonly run: R;
  readonly arrivedAt: number;
  /** Input events taken when it arrived (a grace period counted in events). */
  readonly input: number;
}

/**
 * Runs whose events reach the bridge by one way (a partition of a partitioned consumer; lane 0
 * for everything else) and so share one clock of what has been read: the time through which
 * everything of that way has arrived (`ReorderBuffer.readThrough`), and the holds of its consumer
 * that may have lost messages in flight. Each lane waits for its own way only: a partition read
 * late, or one whose consumer lost messages, holds its own runs and none of another partition's.
 */
export class Lane<R> {
  /** Held events' runs in arrival order. */
  readonly arrivals = new ArrivalQueue();
  /** Runs whose terminal event arrived, in arrival order of that event. */
  readonly closing = new Fifo<Closing<R>>();
  /** Holds on applying this lane's events by time (see `ReorderBuffer.holdFor`). */
  readonly holds = new Holds();

  constructor(readonly id: number) {}

  /**
   * Takes the first run in its grace period if that period passed: it arrived by `graceUntil`, or
   * by the input event `graceInput` (-Infinity: grace is not counted in events).
   */
  nextDue(graceUntil: number, graceInput: number): Closing<R> | undefined {
    const entry = this.closing.peek();
    if (entry === undefined || (entry.arrivedAt > graceUntil && entry.input > graceInput))
      return undefined;
    return this.closing.shift();
  }
}

/** The lanes of a reorder buffer, made as runs first arrive by them, and the holds on all. */
export class Lanes<R> {
  private readonly byId = new Map<number, Lane<R>>();
  /** Every lane, in the order made. */
  readonly all: Lane<R>[] = [];
  /** Holds on every lane. */
  private readonly holds = new Holds();

  get(id: number): Lane<R> {
    let lane = this.byId.get(id);
    if (lane === undefined) {
      lane = new Lane<R>(id);
      this.byId.set(id, lane);
      this.all.push(lane);
    }
    return lane;
  }

  /** Holds lane `id` (every lane: undefined) until `until`, or until let go of. */
  holdFor(until: number, id?: number): () => void {
    return (id === undefined ? this.holds : this.get(id).holds).add(until);
  }

  /** Whether a hold on every lane is on at `now`. */
  allHeld(now: number): boolean {
    return this.holds.on(now);
  }

  /** The lane whose first held event arrived earliest; undefined when none holds any. */
  longestHeld(): Lane<R> | undefined {
    let oldest: Lane<R> | undefined;
    let oldestAt = Infinity;
    for (const lane of this.all) {
      const at = lane.arrivals.firstArrivedAt();
      if (at !== undefined && at < oldestAt) [oldest, oldestAt] = [lane, at];
    }
    return oldest;
  }

  /** The lane whose first run in its grace period ended earliest; undefined when none has one. */
  longestClosing(): Lane<R> | undefined {
    let oldest: Lane<R> | undefined;
    let oldestAt = Infinity;
    for (const lane of this.all) {
      const at = lane.closing.peek()?.arrivedAt;
      if (at !== undefined && at < oldestAt) [oldest, oldestAt] = [lane, at];
    }
    return oldest;
  }

  /** Forgets every lane's held events and runs in their grace period (all applied). */
  clear(): void {
    for (const lane of this.all) {
      lane.arrivals.clear();
      lane.closing.clear();
    }
  }
}
