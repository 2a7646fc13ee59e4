import type { Delivery } from '../sources/delivery.js';
import { mayAct } from './ownership.js';
import type { Ownership } from './ownership.js';

/**
 * A delivery of partition `own.p` whose acknowledgement, negative acknowledgement and keep-alive
 * are sent only while the ownership may act (docs/scaling-out.md, "Partition ownership"). One it
 * may no longer send is refused: counted on the ownership, and the message given back at once for
 * the next owner.
 */
export function fencedDelivery(own: Ownership, delivery: Delivery, leaseMillis: number): Delivery {
  const refuse = () => {
    own.refused += 1;
    delivery.release?.();
  };
  return {
    ...delivery,
    partition: own.p,
    ack: () => {
      if (mayAct(own, leaseMillis)) delivery.ack();
      else refuse();
    },
    nak: (delayMillis) => {
      if (mayAct(own, leaseMillis)) delivery.nak(delayMillis);
      else refuse();
    },
    skip: () => {
      if (!mayAct(own, leaseMillis)) refuse();
      else if (delivery.skip === undefined) delivery.ack();
      else delivery.skip();
    },
    // A stale owner's keep-alive would hold back the redelivery its next owner waits for.
    keepAlive: () => {
      if (mayAct(own, leaseMillis)) delivery.keepAlive?.();
    },
  };
}
