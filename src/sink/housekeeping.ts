import type { ReorderBuffer } from '../mapping/order/reorder-buffer.js';
import type { RunTracker } from '../mapping/run-tracker.js';

/** A tick later than its interval by more than this took place after a stall. */
const STALL_MILLIS = 250;

/** The clock and windows the housekeeping keeps to (the sink's resolved options). */
export interface HousekeepingClock {
  readonly now: () => number;
  readonly reorderWindowMillis: number;
  readonly lateGraceMillis: number;
  readonly idleSweepIntervalMillis: number;
}

/**
 * One timer that applies held events, ends runs after their grace and abandons idle runs. It
 * starts with the first event (a sink that takes none has no timer) and never keeps the process
 * alive. `safely` runs each tick (a tick's fault is logged, never thrown to the timer).
 */
export class Housekeeping {
  private timer: ReturnType<typeof setInterval> | undefined;
  private lastIdleSweep = 0;
  private lastTickAt: number | undefined;
  private readonly tickMillis: number;

  constructor(
    private readonly clock: HousekeepingClock,
    private readonly buffer: ReorderBuffer,
    private readonly tracker: RunTracker,
    private readonly safely: (fn: () => void) => void,
  ) {
    const shortest = Math.min(clock.reorderWindowMillis || 1000, clock.lateGraceMillis || 1000);
    this.tickMillis = Math.min(250, Math.max(10, Math.floor(shortest / 4)));
  }

  /** Starts the timer unless it runs. */
  start(): void {
    if (this.timer !== undefined) return;
    this.lastIdleSweep = this.clock.now();
    this.lastTickAt = this.lastIdleSweep;
    this.timer = setInterval(() => this.safely(() => this.tick()), this.tickMillis);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
  }

  private tick(): void {
    // A tick far later than its interval means the process did not run meanwhile (a stall: an
    // overloaded machine, a long pause): what arrived during it is still unread, so the reorder
    // window, which counts time the bridge could read, is given the stalled time back.
    const tickAt = this.clock.now();
    if (this.lastTickAt !== undefined && tickAt - this.lastTickAt > this.tickMillis + STALL_MILLIS)
      this.buffer.holdFor(tickAt - this.lastTickAt);
    this.lastTickAt = tickAt;
    this.buffer.tick();
    const now = this.clock.now();
    if (now - this.lastIdleSweep >= this.clock.idleSweepIntervalMillis) {
      this.lastIdleSweep = now;
      this.tracker.abandonIdle();
    }
  }
}
