// A router's marks. Events a runtime displaced reach their partition in the source's order, but
// the time between them there is the router's: a router that pauses, dies or fails a read between
// a run's later event and its earlier one leaves a gap that an instance's reorder window, counted
// on the instance's clock, could mistake for the end of the displacement (the later event applied,
// the earlier one late). So a router says, each time it has read its source to the end and stored
// every copy, how long ago it had read to the end (a drain mark); an instance behind routers counts
// its reorder window and grace periods only up to the last time it heard of (see ReorderBuffer).
// A router that routes without reading to the end (a term's start, a backlog) says so too (a
// behind mark): time stands still for the instance until it reads to the end.
//
// Marks are not stored (core NATS, Redis pub/sub): an instance that hears none — no router (the
// runtime publishes to the partitions itself), or every router silent for longer than a router's
// failover can take — keeps its own clock.

/** Where a NATS router of `subject` sends its marks (outside `<subject>.*` and `<subject>.>`). */
export function routedSubject(subject: string): string {
  return `agent_otel_bridge.routed.${subject}`;
}

/** Where a Redis router of the stream `key` sends its marks. */
export function routedChannel(key: string): string {
  return `${key}:routed`;
}

/** A drain mark: the router had read its source to the end and stored every copy `millisAgo` ago. */
export function markText(millisAgo: number): string {
  return JSON.stringify({ drained_ms_ago: Math.max(0, Math.round(millisAgo)) });
}

/** A behind mark: a router routes, and has not read its source to the end since its last drain mark. */
export const BEHIND_MARK = JSON.stringify({ behind: true });

/** Least time between two behind marks of one router while it works off a backlog. */
export const BEHIND_MARK_EVERY_MILLIS = 250;

/**
 * A term's behind marks, sent through `send`: `mark()` at once (the term's start), `ifDue()` while
 * a backlog is read, at most every BEHIND_MARK_EVERY_MILLIS.
 */
export function behindMarks<T>(send: (text: string) => T): {
  mark(): T;
  ifDue(): T | undefined;
} {
  let sentAt = -Infinity;
  const mark = () => {
    sentAt = Date.now();
    return send(BEHIND_MARK);
  };
  return {
    mark,
    ifDue: () => (Date.now() - sentAt >= BEHIND_MARK_EVERY_MILLIS ? mark() : undefined),
  };
}

/**
 * A mark's meaning: a drain mark's age (ms), `'behind'`, or undefined for text that is not a mark.
 */
export function markAge(text: string): number | 'behind' | undefined {
  try {
    const mark = JSON.parse(text) as { drained_ms_ago?: unknown; behind?: unknown } | null;
    if (mark?.behind === true) return 'behind';
    const age = mark?.drained_ms_ago;
    return typeof age === 'number' && Number.isFinite(age) && age >= 0 ? age : undefined;
  } catch {
    return undefined;
  }
}

/** Subscribes to a router's marks; resolves to what unsubscribes. */
export type ListenForMarks = (onMark: (text: string) => void) => Promise<() => Promise<void>>;

/** Time taken off a drain mark for its way from the router to this instance. */
export const MARK_TRANSIT_MILLIS = 100;

/**
 * How long an instance waits for a router's mark before its windows run on its own clock again:
 * longer than a router's failover takes with the default lease (10 s) and ack wait (30 s).
 */
export const ROUTER_SILENCE_MILLIS = 60_000;

/** A drain mark heard: when, and the time through which it says everything was routed. */
interface HeardMark {
  readonly heardAt: number;
  readonly drainedAt: number;
}

/** Drain marks heard and not yet in effect, beyond which the oldest two are taken as one. */
const WAITING_MARKS = 64;

/**
 * What an instance knows of its routers: the time (its own clock, ms) through which everything the
 * runtime published has been routed and read here. Infinity while it hears no router (none yet,
 * or none for `silenceMillis`): the window then runs on the instance's clock, as without routers.
 * A router heard before any drain mark (a term that begins with a backlog) leaves it at the time
 * the instance started listening: nothing that came since is applied by time until a drain mark.
 *
 * A drain mark speaks of copies stored in the partitions, not of copies read: it takes effect for a
 * partition once that partition has been read to its end by a read sent after the mark was heard
 * (`readSince`), so that an instance slow to read (a busy process, a long batch) never counts time
 * through copies still waiting in a partition; and for every partition once each has been.
 */
export class RoutedClock {
  private heardAt: number | undefined;
  /** The latest time drain marks say of that every partition has been read past. */
  private drainedAt = -Infinity;
  /** Drain marks heard, oldest first, waiting for some partition to be read past them. */
  private readonly waiting: HeardMark[] = [];
  private readonly listeningSince: number;
  private silent = false;

  constructor(
    private readonly options: {
      readonly silenceMillis: number;
      readonly now: () => number;
      readonly report: (message: string) => void;
      /**
       * The time (same clock) before which everything stored in partition `p` (every partition
       * of this instance: undefined) has been handed over (see `BrokerSource.readToEnd`).
       * Default: Infinity (read at once).
       */
      readonly readSince?: (p?: number) => number;
      /**
       * The last time (same clock) this process ran anything before now: a mark handled now
       * arrived no earlier, however long the process was busy before it read the mark. Default:
       * now (a mark arrived when it is handled).
       */
      readonly arrivedAfter?: () => number;
    },
  ) {
    this.listeningSince = options.now();
  }

  heard(text: string): void {
    const age = markAge(text);
    if (age === undefined) return;
    const now = this.options.now();
    if (this.silent) {
      this.silent = false;
      this.options.report('a router is routing again; reorder windows follow its marks');
    }
    this.heardAt = now;
    if (age === 'behind') return;
    // The age counts from when the router sent it: from when it arrived here, not from when a
    // busy process got round to it, or the time it says would run ahead by that wait.
    const arrived = Math.min(now, this.options.arrivedAfter?.() ?? now);
    this.waiting.push({ heardAt: now, drainedAt: arrived - age - MARK_TRANSIT_MILLIS });
    // Taken as one, the two oldest take effect with the later: later, never earlier.
    if (this.waiting.length > WAITING_MARKS) {
      const [first, second] = this.waiting.splice(0, 2) as [HeardMark, HeardMark];
      this.waiting.unshift({
        heardAt: second.heardAt,
        drainedAt: Math.max(first.drainedAt, second.drainedAt),
      });
    }
  }

  /**
   * The time through which everything routed to partition `p` (every partition: undefined) has
   * been read here.
   */
  through(p?: number): number {
    if (this.heardAt === undefined) return Infinity;
    const readSince = this.options.readSince;
    const allSince = readSince?.() ?? Infinity;
    // A read sent in the same millisecond as the mark was heard may have been sent before it.
    while (this.waiting.length > 0 && this.waiting[0]!.heardAt < allSince)
      this.drainedAt = Math.max(this.drainedAt, this.waiting.shift()!.drainedAt);
    if (this.options.now() - this.heardAt <= this.options.silenceMillis) {
      let drainedAt = this.drainedAt;
      const since = p === undefined || readSince === undefined ? allSince : readSince(p);
      for (const mark of this.waiting) {
        if (mark.heardAt >= since) break;
        drainedAt = Math.max(drainedAt, mark.drainedAt);
      }
      return drainedAt === -Infinity ? this.listeningSince : drainedAt;
    }
    if (!this.silent) {
      this.silent = true;
      this.options.report(
        `no router heard for ${(this.options.silenceMillis / 1000).toFixed(0)} s; reorder windows run on this instance's clock until one is`,
      );
    }
    return Infinity;
  }
}
