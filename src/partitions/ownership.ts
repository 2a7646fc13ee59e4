import type { BrokerSource } from '../sources/broker-source.js';

/**
 * One ownership of a partition, from the lease taken to the partition let go. A later ownership
 * of the same partition is another object: a message handler, an acknowledgement or a renewal
 * that belongs to an earlier one can only ever see that earlier one, fenced.
 *
 * States (docs/scaling-out.md, "Partition ownership"):
 * - `taking`: lease held, its checkpointed runs being restored; nothing read yet;
 * - `reading`: messages applied, acknowledged, checkpoints saved, while it may act;
 * - `handing_over`: reading stopped; the lease still renewed while what can be settled is
 *   (open runs checkpointed, ended runs exported and acknowledged); then the lease is released;
 * - `stepping_down`: fenced (lease lost or not renewed in time): nothing more is applied,
 *   acknowledged or saved; its open runs are forgotten and left to the next owner.
 */
export interface Ownership {
  readonly p: number;
  /** Grows with every ownership of the partition (the lease's revision or counter). */
  readonly epoch: number;
  readonly source: BrokerSource;
  running: Promise<void> | undefined;
  /** When the last successful renewal (or the acquisition) was sent. */
  renewedAt: number;
  state: 'taking' | 'reading' | 'handing_over' | 'stepping_down';
  /** Set once and for good: this ownership has no more effects. */
  fenced: boolean;
  /** Effects refused because the ownership could no longer act (left to the next owner). */
  refused: number;
  /**
   * When (Date.now()) the last read sent that took everything the partition held was sent:
   * everything stored before it has been handed over. -Infinity until such a read.
   */
  readToEndSince: number;
}

/** What fencing reads of a lease held: when it was last renewed, and whether it was given up. */
export type Lease = Pick<Ownership, 'renewedAt' | 'fenced'>;

/** Beyond this share of the lease time since the last renewal was sent, an owner does nothing. */
export const ACT_WITHIN_LEASE = 0.75;

export function createOwnership(
  p: number,
  epoch: number,
  source: BrokerSource,
  acquiredAt: number,
): Ownership {
  return {
    p,
    epoch,
    source,
    running: undefined,
    renewedAt: acquiredAt,
    state: 'taking',
    fenced: false,
    refused: 0,
    readToEndSince: -Infinity,
  };
}

/**
 * Whether the ownership may have an effect now: not fenced, and renewed recently enough that its
 * lease cannot have expired (the lease's time runs from when the renewal reached the broker, no
 * earlier than when it was sent). Asked right before each effect is sent; what is sent reaches the
 * broker within the remaining quarter of the lease unless the network holds it longer.
 */
export function mayAct(own: Lease, leaseMillis: number, now = Date.now()): boolean {
  return actWindow(own, leaseMillis, now) >= 0;
}

/**
 * How much longer (ms) the ownership may act; negative once it may not. A read that takes
 * messages from the broker is an effect too: it is sent only when it can end within this window.
 */
export function actWindow(own: Lease, leaseMillis: number, now = Date.now()): number {
  return own.fenced ? -1 : own.renewedAt + leaseMillis * ACT_WITHIN_LEASE - now;
}
