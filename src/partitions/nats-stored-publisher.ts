import { createInbox, headers } from '@nats-io/transport-node';
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';

/** How long a message waits for its stream's answer before it counts as not stored. */
const STORE_TIMEOUT_MILLIS = 5000;

/** Told once per message: `undefined` once its stream stored it (or had it already), else why not. */
export type Stored = (error: Error | undefined) => void;

interface Waiting {
  readonly stored: Stored;
  readonly subject: string;
  readonly sentAt: number;
}

/**
 * Publishes messages to JetStream streams and tells when each is stored, as a JetStream publish
 * does, through one inbox subscription for every message instead of a request each (the
 * client's request makes a timer, two promises and an error object with its stack for every
 * message). Each message carries `Nats-Msg-Id`, so that its stream drops a second copy.
 *
 * Answers are told as they arrive; a message unanswered after the timeout (lost in a reconnect,
 * say) is told it timed out. What is still waiting at `close()` is told so.
 */
export class NatsStoredPublisher {
  private readonly inbox = createInbox();
  private readonly subscription: Subscription;
  private readonly waiting = new Map<string, Waiting>();
  private readonly expiring: ReturnType<typeof setInterval>;
  private next = 0;
  private whenIdle: (() => void)[] = [];

  constructor(
    private readonly nc: NatsConnection,
    private readonly timeoutMillis = STORE_TIMEOUT_MILLIS,
  ) {
    this.subscription = nc.subscribe(`${this.inbox}.*`, {
      callback: (error, message) => this.answered(error, message),
    });
    this.expiring = setInterval(() => this.expire(), Math.min(1000, timeoutMillis / 4));
    this.expiring.unref();
  }

  /** Messages published and not yet answered. */
  get size(): number {
    return this.waiting.size;
  }

  /** Publishes `text` to `subject` with `Nats-Msg-Id: id`; `stored` is told once. */
  publish(subject: string, text: string, id: string, stored: Stored): void {
    const token = (this.next++).toString(36);
    const h = headers();
    h.set('Nats-Msg-Id', id);
    this.waiting.set(token, { stored, subject, sentAt: Date.now() });
    try {
      this.nc.publish(subject, text, { reply: `${this.inbox}.${token}`, headers: h });
    } catch (error) {
      this.settle(token, error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** Resolves once nothing published waits for its answer. */
  idle(): Promise<void> {
    if (this.waiting.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.whenIdle.push(resolve));
  }

  /** Stops listening; what still waits is told it was not stored. */
  close(): void {
    clearInterval(this.expiring);
    this.subscription.unsubscribe();
    for (const token of [...this.waiting.keys()])
      this.settle(token, new Error('closed before its stream answered'));
  }

  private answered(error: Error | null, message: Msg): void {
    if (error !== null) {
      // The subscription itself failed (a permission refused, say): no answer will come.
      for (const token of [...this.waiting.keys()]) this.settle(token, error);
      return;
    }
    const token = message.subject.slice(this.inbox.length + 1);
    const waiting = this.waiting.get(token);
    if (waiting === undefined) return;
    this.settle(token, answerError(message, waiting.subject));
  }

  private expire(): void {
    const before = Date.now() - this.timeoutMillis;
    // Published in order, so the oldest come first.
    for (const [token, waiting] of this.waiting) {
      if (waiting.sentAt > before) break;
      this.settle(token, new Error(`no answer from the stream within ${this.timeoutMillis} ms`));
    }
  }

  private settle(token: string, error: Error | undefined): void {
    const waiting = this.waiting.get(token);
    if (waiting === undefined) return;
    this.waiting.delete(token);
    waiting.stored(error);
    if (this.waiting.size === 0 && this.whenIdle.length > 0) {
      const resolves = this.whenIdle;
      this.whenIdle = [];
      for (const resolve of resolves) resolve();
    }
  }
}

/** A stream's answer to a publish: `undefined` when it stored the message, else the error it names. */
function answerError(message: Msg, subject: string): Error | undefined {
  // No stream takes the subject: the server answers with status 503 and nothing else.
  if (message.data.length === 0 && message.headers?.code === 503)
    return new Error(`no stream takes subject ${subject} (no responders)`);
  let answer: PubAnswer;
  try {
    answer = message.json<PubAnswer>();
  } catch {
    return new Error(`the stream's answer for subject ${subject} is not JSON`);
  }
  if (answer.error !== undefined) {
    const { description = 'stream error', code, err_code } = answer.error;
    return new Error(`${description} (code ${code ?? '?'}, err_code ${err_code ?? '?'})`);
  }
  if (typeof answer.stream !== 'string' || answer.stream === '')
    return new Error(`the stream's answer for subject ${subject} names no stream`);
  return undefined;
}

/** What a stream answers a publish: the stream and sequence it stored at, or an error. */
interface PubAnswer {
  readonly stream?: unknown;
  readonly error?: { code?: number; err_code?: number; description?: string };
}
