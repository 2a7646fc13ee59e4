// Backpressure on export for a reader of files: every so many lines the spans made since are
// flushed, and reading goes on while that flush runs. Only when the next flush is due and the one
// before it has not finished does the reader wait for it (through an outage, as long as the
// outage is held). So at most two flushes' worth of spans are ever queued, and the reader is not
// idle for an exporter's round trip at every flush, only when the exporter is slower than it.

/** Flushes, overlapped with the reading they follow; at most one in flight. */
export class PacedFlush {
  private inFlight: Promise<void> | undefined;
  /** The next flush, waiting for the one in flight (shared by readers that find it due at once). */
  private next: Promise<void> | undefined;

  constructor(private readonly flush: () => Promise<void>) {}

  /**
   * A flush is due: starts it once the one before it has finished. Answers a promise to wait on
   * where that one is still running, undefined where the new flush has started already.
   */
  due(): Promise<void> | undefined {
    if (this.inFlight === undefined) {
      this.start();
      return undefined;
    }
    return (this.next ??= this.inFlight.then(() => {
      this.next = undefined;
      this.start();
    }));
  }

  /** Waits for the flush in flight, if any. */
  async settled(): Promise<void> {
    await this.next;
    await this.inFlight;
  }

  private start(): void {
    const flushing: Promise<void> = this.flush().then(
      () => this.finished(flushing),
      () => this.finished(flushing),
    );
    this.inFlight = flushing;
  }

  private finished(flushing: Promise<void>): void {
    if (this.inFlight === flushing) this.inFlight = undefined;
  }
}
