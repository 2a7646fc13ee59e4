import type { Delivery } from './delivery.js';

/** A broker the bridge consumes with acknowledgements (NATS JetStream, Redis Streams). */
export interface BrokerSource {
  /** For messages: `nats://…/STREAM/SUBJECT`, `redis://…/KEY`. */
  readonly description: string;
  /** How often held messages need a keep-alive, if the broker redelivers them otherwise. */
  readonly keepAliveMillis: number | undefined;
  /**
   * Connects, and waits for what it reads to exist (a NATS stream the runtime has not created yet;
   * a Redis stream is created with its group) until `stop()`; throws a one-line error when it
   * cannot be read.
   */
  open(): Promise<void>;
  /**
   * Hands over messages until `stop()`, pulling only while `canPull()`. A partition's owner also
   * gives `readWindow`: how long (ms) a read sent now may stay open at the broker while it may
   * still act (0 or less: not now). A source whose reads move messages to this consumer for good
   * (Redis: into its pending list, where only a new owner's claim at start finds them) reads only
   * within it, so that a stale owner never takes messages its successor will not see.
   * `holdFor` hears that messages this consumer lost are on their way back (NATS: sent into a
   * failed pull, redelivered after the ack wait): nothing that arrived should be applied for that
   * long, so that they take their places among the events of their runs. It returns how to let go
   * of that hold early: once the source knows that nothing was lost, or that it all came back.
   * A partitioned source names the partition (`lane`) whose messages are on their way back.
   */
  run(
    onMessage: (text: string, delivery: Delivery) => void,
    canPull: () => boolean,
    readWindow?: () => number,
    holdFor?: (millis: number, lane?: number) => () => void,
  ): Promise<void>;
  /** Stops pulling; `run()` resolves once the batch in hand is handed over. */
  stop(): void;
  /**
   * Asks a `run()` that `canPull()` paused to ask again now, where it would ask again after a
   * pause (the caller knows when its answer changes: a router's copies all stored).
   */
  wake?(): void;
  /** Sends outstanding acknowledgements and disconnects. */
  close(): Promise<void>;
  /** Messages in the stream not yet delivered to this consumer (undefined: unknown). */
  lag?(): Promise<number | undefined>;
  /**
   * Partitioned sources: whether this instance may still have effects for partition `p` (save
   * its runs' checkpoints, acknowledge its messages). False from the moment its lease may have
   * lapsed; asked right before each such effect.
   */
  mayAct?(p: number): boolean;
  /**
   * Partitioned sources: the time (Date.now()) before which everything stored in partition `p`
   * (every partition this instance owns: undefined) has been handed over: its last read that took
   * all there was (the oldest of them). -Infinity while a partition has had no such read; Infinity
   * when it is not owned (none is).
   */
  readToEnd?(p?: number): number;
}

/**
 * Resolves after `ms`, or at once when `signal` aborts or `wakeup` (if given) is woken. Whichever
 * ends it, the timer and the listener on `signal` are let go (a source paused every 50 ms for
 * hours must not leave a listener on its signal each time).
 */
export function pause(ms: number, signal: AbortSignal, wakeup?: Wakeup): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve();
      return;
    }
    const end = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', end);
      if (wakeup !== undefined && wakeup.ending === end) wakeup.ending = undefined;
      resolve();
    };
    const timer = setTimeout(end, ms);
    signal.addEventListener('abort', end, { once: true });
    if (wakeup !== undefined) wakeup.ending = end;
  });
}

/** Ends the `pause` it is given to (see `BrokerSource.wake`); nothing while none is under way. */
export class Wakeup {
  /** How the pause under way ends, if one is. */
  ending: (() => void) | undefined;

  wake(): void {
    this.ending?.();
  }
}

/**
 * Waits until `exists()` says what is read exists (a stream nothing was published to yet), asking
 * every second and saying once that it waits; resolves false when `signal` aborts first.
 */
export async function waitUntilExists(
  exists: () => Promise<boolean>,
  signal: AbortSignal,
  waiting: () => void,
): Promise<boolean> {
  let said = false;
  while (!signal.aborted) {
    if (await exists().catch(() => false)) return true;
    if (!said) {
      said = true;
      waiting();
    }
    await pause(1000, signal);
  }
  return false;
}

/**
 * Keeps a consuming loop going through a lost broker connection: the loss is reported once, each
 * retry waits longer (250 ms doubling to 5 s), and the recovery is reported when it comes. A
 * failure that passes by itself (a NATS pull given up while the server was slow, its connection
 * up) is reported only when the read after it fails too.
 */
export class ConnectionWatch {
  private lostSince: number | undefined;
  private backoffMillis = 250;
  /** A passing failure was let by since the last read that succeeded. */
  private passed = false;

  constructor(
    private readonly broker: string,
    private readonly report: (message: string) => void,
  ) {}

  /** How long the next `failed()` waits. */
  get retryMillis(): number {
    return this.backoffMillis;
  }

  /** A read succeeded. */
  ok(): void {
    this.passed = false;
    if (this.lostSince === undefined) return;
    const seconds = ((Date.now() - this.lostSince) / 1000).toFixed(1);
    this.report(`${this.broker} is back after ${seconds} s; consuming again`);
    this.lostSince = undefined;
    this.backoffMillis = 250;
  }

  /** The connection is gone: reported the first time. */
  lost(error: unknown): void {
    if (this.lostSince !== undefined) return;
    this.lostSince = Date.now();
    const detail = error instanceof Error ? error.message : String(error);
    this.report(`lost ${this.broker} (${detail}); retrying until it is back`);
  }

  /**
   * A read failed: report (the first time; a `passing` failure only if the read before it failed
   * too) and wait before the next try.
   */
  async failed(error: unknown, signal: AbortSignal, passing = false): Promise<void> {
    if (passing && !this.passed && this.lostSince === undefined) this.passed = true;
    else this.lost(error);
    await pause(this.backoffMillis, signal);
    this.backoffMillis = Math.min(this.backoffMillis * 2, 5000);
  }
}
