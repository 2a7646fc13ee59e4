import type { JsMsg } from '@nats-io/jetstream';
import type { Delivery } from './delivery.js';

/**
 * The deliveries of one NATS consumer's `run()`: messages handed over and not yet acknowledged or
 * given back, by stream sequence, with their deliveries not yet settled. A message redelivered
 * while its first delivery is still held (its ack wait ran out in a stall, or a former owner gave
 * it back) is one message pending at the server, not two, and an acknowledgement of either
 * delivery settles it there.
 */
export class NatsDeliveries {
  private readonly unsettled = new Map<number, number>();

  /** Messages held here (each counted once, however many of its deliveries are unsettled). */
  get held(): number {
    return this.unsettled.size;
  }

  /** A delivery of `message`, counted as held until it is settled. */
  of(message: JsMsg): Delivery {
    const held = this.unsettled;
    const seq = message.seq;
    held.set(seq, (held.get(seq) ?? 0) + 1);
    let settled = false;
    const settle = (acknowledged: boolean) => {
      if (settled) return false;
      settled = true;
      const left = (held.get(seq) ?? 1) - 1;
      if (acknowledged || left <= 0) held.delete(seq);
      else held.set(seq, left);
      return true;
    };
    return {
      sequence: seq,
      ack: () => {
        if (settle(true)) message.ack();
      },
      nak: (delay) => {
        if (settle(false)) message.nak(delay);
      },
      keepAlive: () => message.working(),
      // Handed to another owner of the consumer: redelivered at once, ahead of newer messages,
      // and still counted as pending, so the new owner collects them and applies them in stream
      // order first (no wait for the ack wait).
      release: () => {
        if (settle(false)) message.nak(0);
      },
      // A copy of a message whose first delivery is still held here settles here only: its
      // acknowledgement would settle the message at the server while the first delivery's run
      // is not durable, and a crash or a lost partition would then lose it.
      skip: () => {
        if ((held.get(seq) ?? 0) > 1) settle(false);
        else if (settle(true)) message.ack();
      },
    };
  }
}
