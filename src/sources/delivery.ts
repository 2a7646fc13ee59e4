// One message from a broker, as a source hands it over to be settled.
/** One message from a broker, to be acknowledged once its effects are durable. */
export interface Delivery {
  ack(): void;
  /** Ask for redelivery (after `delayMillis`). */
  nak(delayMillis: number): void;
  /** Tell the broker the message is still being worked on (NATS `+WIP`). */
  keepAlive?(): void;
  /** The partition it was read from (partitioned consumption). */
  readonly partition?: number;
  /** The message's place in its stream (a JetStream stream sequence), where the broker gives one. */
  readonly sequence?: number;
  /** Hand it to the partition's next owner: neither acknowledged nor redelivered here. */
  release?(): void;
  /**
   * Nothing of it is kept (a duplicate, a late event): acknowledged, unless an earlier delivery
   * of the same message is still held here (NATS redelivers a message whose ack wait ran out),
   * which settles it once its run is durable. Without it: `ack()`.
   */
  skip?(): void;
}
