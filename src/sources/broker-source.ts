import type { Delivery } from './delivery-ledger.js';

/** A broker the bridge consumes with acknowledgements (NATS JetStream, Redis Streams). */
export interface BrokerSource {
  /** For messages: `nats://…/STREAM/SUBJECT`, `redis://…/KEY`. */
  readonly description: string;
  /** How often held messages need a keep-alive, if the broker redelivers them otherwise. */
  readonly keepAliveMillis: number | undefined;
  /** Connects and checks that what it reads exists; throws a one-line error otherwise. */
  open(): Promise<void>;
  /** Hands over messages until `stop()`, pulling only while `canPull()`. */
  run(onMessage: (text: string, delivery: Delivery) => void, canPull: () => boolean): Promise<void>;
  /** Stops pulling; `run()` resolves once the batch in hand is handed over. */
  stop(): void;
  /** Sends outstanding acknowledgements and disconnects. */
  close(): Promise<void>;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve();
      return;
    }
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
