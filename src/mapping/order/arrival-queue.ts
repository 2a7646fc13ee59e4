/** Entries per block. */
const BLOCK = 1024;

/** A run of entries: run ids, their arrival times unboxed, and the block after it. */
interface Block {
  readonly runIds: (string | undefined)[];
  readonly times: Float64Array;
  next: Block | undefined;
}

const newBlock = (): Block => ({
  runIds: new Array<string | undefined>(BLOCK).fill(undefined),
  times: new Float64Array(BLOCK),
  next: undefined,
});

/**
 * Held events' runs in arrival order, to find what has been held long enough: a run id and an
 * arrival time per held event. An entry outlives its event when the event is applied early (its
 * run's bound, its run's end); it is passed over when its turn comes.
 *
 * One entry is pushed for every event held, so the queue is built for that: entries go into
 * fixed blocks chained first to last, so that a growing queue copies nothing and a consumed block
 * is let go at once (one is kept for the next block needed); times are kept in a `Float64Array`,
 * so that an entry allocates nothing (a clock's milliseconds are not small integers, and an array
 * that also holds `undefined`, as a ring's emptied slots do, boxes each one).
 */
export class ArrivalQueue {
  private head: Block = newBlock();
  private headAt = 0;
  private tail: Block = this.head;
  private tailAt = 0;
  private size = 0;
  private spare: Block | undefined;

  get length(): number {
    return this.size;
  }

  push(runId: string, arrivedAt: number): void {
    if (this.tailAt === BLOCK) {
      const block = this.spare ?? newBlock();
      this.spare = undefined;
      this.tail.next = block;
      this.tail = block;
      this.tailAt = 0;
    }
    this.tail.runIds[this.tailAt] = runId;
    this.tail.times[this.tailAt] = arrivedAt;
    this.tailAt += 1;
    this.size += 1;
  }

  /** When the first entry arrived; undefined when empty. */
  firstArrivedAt(): number | undefined {
    return this.size === 0 ? undefined : this.head.times[this.headAt];
  }

  /** Takes the first entry's run id; undefined when empty. */
  shift(): string | undefined {
    if (this.size === 0) return undefined;
    const head = this.head;
    const runId = head.runIds[this.headAt];
    head.runIds[this.headAt] = undefined;
    this.headAt += 1;
    this.size -= 1;
    if (this.size === 0) {
      // The last entry was in the head block, which is the tail: it is filled again from its start.
      this.headAt = 0;
      this.tailAt = 0;
    } else if (this.headAt === BLOCK) {
      this.head = head.next!;
      this.headAt = 0;
      head.next = undefined;
      this.spare = head;
    }
    return runId;
  }

  clear(): void {
    this.head = newBlock();
    this.tail = this.head;
    this.headAt = 0;
    this.tailAt = 0;
    this.size = 0;
    this.spare = undefined;
  }
}
