import { Fifo } from './fifo.js';

/**
 * Held events' runs in arrival order, to find what has been held long enough: a run id and an
 * arrival time per held event, kept in two queues so that holding an event allocates nothing
 * here. An entry outlives its event when the event is applied early (its run's bound, its run's
 * end); it is passed over when its turn comes.
 */
export class ArrivalQueue {
  private readonly runIds = new Fifo<string>();
  private readonly times = new Fifo<number>();

  get length(): number {
    return this.runIds.length;
  }

  push(runId: string, arrivedAt: number): void {
    this.runIds.push(runId);
    this.times.push(arrivedAt);
  }

  /** When the first entry arrived; undefined when empty. */
  firstArrivedAt(): number | undefined {
    return this.times.peek();
  }

  /** Takes the first entry's run id; undefined when empty. */
  shift(): string | undefined {
    this.times.shift();
    return this.runIds.shift();
  }

  clear(): void {
    this.runIds.clear();
    this.times.clear();
  }
}
