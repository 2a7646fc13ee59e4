/**
 * Failures to connect at all: nothing listens at the address, or the name does not resolve (as
 * opposed to a connection that was reset, or a collector that answered with an error).
 */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  // gRPC's UNAVAILABLE (14): no connection could be made.
  '14',
]);

/**
 * How long exports are held when nothing has ever been reached at the collector's address in this
 * process. The exporter's own retries take about 9 s per attempt (less with a shorter
 * `OTEL_EXPORTER_OTLP_TIMEOUT`), and a collector that comes up within them is still met.
 */
export const UNREACHABLE_HOLD_MILLIS = 6000;
/** Once an outage's budget is spent, one export in this long still tries the collector. */
export const PROBE_GAP_MILLIS = 5000;

/**
 * What the exporter says of an export it did not send (too many in flight, nothing to send):
 * news of the exporter, none of the collector.
 */
const NOT_SENT = new Set([
  'Concurrent export limit reached',
  'Concurrency Limit reached',
  'Nothing to send',
]);

/** Whether an export failed before anything was sent, so that it says nothing of the collector. */
export function isNotSent(error: unknown): boolean {
  return (
    error instanceof Error &&
    (error as { code?: unknown }).code === undefined &&
    NOT_SENT.has(error.message)
  );
}

/** Whether an export error says that nothing could be reached at the collector's address. */
export function isUnreachable(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return (
    (typeof code === 'string' || typeof code === 'number') && UNREACHABLE_CODES.has(String(code))
  );
}

/**
 * One collector outage, shared by every export held through it (spans and metrics): the hold is
 * one budget from the outage's start, not one per export, so a process that exits during an
 * outage waits at most that long in all. A collector never reached in this process (nothing
 * listening, a mistyped host) gets `UNREACHABLE_HOLD_MILLIS` at most: it is far more likely
 * a wrong address than an outage. Once the budget is spent, exports fail at once, but one every
 * `PROBE_GAP_MILLIS` still tries, so that a collector coming back is noticed.
 *
 * The budget bounds the wait for exports already in flight too (see `hold`): the exporter's own
 * retries of one attempt take seconds, and an attempt that started before the outage was known
 * would otherwise be waited for past the budget. Those still held when it is spent are given up
 * then (a probe, which started after, is left to end on its own); once the process is closing
 * (`close`), every export still held when the budget is spent is given up, probes too.
 */
export class Outage {
  private since: number | undefined;
  private reached = false;
  private unreachable = false;
  private lastProbe = Number.NEGATIVE_INFINITY;
  private lastError: Error | undefined;
  /** Exports held now → whether each is a probe, by the callback that gives it up. */
  private readonly held = new Map<() => void, boolean>();
  private closing = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerDue = Number.POSITIVE_INFINITY;

  constructor(
    private readonly holdMillis: number,
    /** Told once at the start of each outage, with the first error. */
    private readonly onStart: (error: Error | undefined) => void = () => undefined,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** An attempt that started at `startedAt` failed. */
  failed(startedAt: number, error: Error | undefined): void {
    this.lastProbe = this.now();
    // An export the exporter did not send (too many in flight while the collector is down)
    // leaves what is known of the collector as it was.
    if (isNotSent(error)) this.lastError ??= error;
    else {
      this.lastError = error;
      this.unreachable = isUnreachable(error);
      // Something answered (an error status, a reset connection): the address is right.
      if (!this.unreachable) this.reached = true;
    }
    if (this.since === undefined) {
      this.since = startedAt;
      this.onStart(error);
    }
    this.arm();
  }

  /** Something listens at the collector's address (a probe connected): the full hold applies. */
  reachable(): void {
    this.reached = true;
  }

  succeeded(): void {
    this.since = undefined;
    this.reached = true;
  }

  /** Milliseconds left of the outage's budget (Infinity while there is no outage). */
  remaining(): number {
    if (this.since === undefined) return Number.POSITIVE_INFINITY;
    const budget =
      !this.reached && this.unreachable
        ? Math.min(this.holdMillis, UNREACHABLE_HOLD_MILLIS)
        : this.holdMillis;
    return budget - (this.now() - this.since);
  }

  /**
   * Whether a new export should fail at once: the budget is spent and another export tried the
   * collector less than `PROBE_GAP_MILLIS` ago. Counts the export as the probe when it may try.
   */
  spent(): Error | undefined {
    if (this.remaining() > 0) return undefined;
    const now = this.now();
    if (!this.closing && now - this.lastProbe >= PROBE_GAP_MILLIS) {
      this.lastProbe = now;
      return undefined;
    }
    return this.error();
  }

  /** What an export failed with in this outage, for one that is given up. */
  error(): Error {
    return this.lastError ?? new Error('the collector is not taking exports');
  }

  /**
   * An export is held (one that `spent` let try past the budget is its probe): `giveUp` is called
   * if it is still held when the budget is spent. Returns its release, for when it ends.
   */
  hold(giveUp: () => void): () => void {
    this.held.set(giveUp, this.remaining() <= 0);
    this.arm();
    return () => this.held.delete(giveUp);
  }

  /**
   * The process is closing: no more probes, and every export still held when the budget is spent
   * (or now, if it is) is given up.
   */
  close(): void {
    this.closing = true;
    this.arm();
  }

  /**
   * Calls `expire` when the budget of the outage in course ends, while exports are held. The
   * budget may have shrunk since the timer was set (the first failures said nothing of the
   * address, a later one that nothing listens there): the timer is set again, sooner.
   */
  private arm(): void {
    if (this.since === undefined || this.held.size === 0) return;
    const left = this.remaining();
    if (left <= 0) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.expire();
      return;
    }
    const due = this.now() + left;
    if (this.timer !== undefined && this.timerDue <= due) return;
    clearTimeout(this.timer);
    this.timerDue = due;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.expire();
    }, left);
    // The exports held keep the process alive; this only ends their wait.
    this.timer.unref?.();
  }

  private expire(): void {
    // The outage may have ended, or its budget grown (the address answered), since it was armed.
    if (this.remaining() > 0) {
      this.arm();
      return;
    }
    for (const [giveUp, probe] of [...this.held])
      if (this.closing || !probe) {
        this.held.delete(giveUp);
        giveUp();
      }
  }
}
