/** A partition's restored runs are replayed after this long if no message of it came first. */
const REPLAY_RESTORED_AFTER_MILLIS = 5000;

/**
 * Runs restored from a partition's checkpoints and not replayed yet. They are replayed when the
 * partition's first message arrives (or after a while without one), so that they meet the
 * messages that follow them within the reorder window, however long the partition takes to be
 * read again.
 */
export class DeferredReplays {
  /** Partition → its restored runs. */
  private readonly waiting = new Map<number, string[]>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly replay: (partition: number, runIds: readonly string[]) => void) {}

  /** Holds `runIds` of `partition` until its first message, or until the wait runs out. */
  defer(partition: number, runIds: string[]): void {
    this.waiting.set(partition, runIds);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (this.waiting.get(partition) === runIds) this.replayNow(partition);
    }, REPLAY_RESTORED_AFTER_MILLIS);
    timer.unref();
    this.timers.add(timer);
  }

  /** Replays `partition`'s restored runs now, if any wait. */
  replayNow(partition: number): void {
    if (this.waiting.size === 0) return;
    const runIds = this.waiting.get(partition);
    if (runIds === undefined) return;
    this.waiting.delete(partition);
    this.replay(partition, runIds);
  }

  close(): void {
    for (const timer of this.timers) clearTimeout(timer);
  }
}
