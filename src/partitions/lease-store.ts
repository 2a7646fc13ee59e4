/**
 * Partition leases and instance membership, held in the broker itself (JetStream KV, Redis keys):
 * at most one owner per partition at a time, lost when the owner stops renewing within the lease
 * time. Every time lives in the broker (a key's time to live, the server's clock), never in an
 * instance's own clock, so an instance whose clock runs ahead or behind cannot keep a lease or a
 * membership alive past its time.
 */
export interface LeaseStore {
  /** Says this instance is alive; resolves with the number of live instances (itself included). */
  heartbeat(): Promise<number>;
  /**
   * Takes partition `p` if nobody holds it; resolves with the ownership's epoch, which grows with
   * every ownership of `p` (undefined: someone holds it). A lease found without an expiry is given
   * one of the lease time, so a key left behind by hand cannot block a partition for good.
   */
  acquire(p: number): Promise<number | undefined>;
  /** Extends this instance's lease on `p`; false when it was lost (expired, taken). */
  renew(p: number): Promise<boolean>;
  /** Gives `p` up (only if this instance holds it). */
  release(p: number): Promise<void>;
  /** Leaves the membership and disconnects. */
  close(): Promise<void>;
}
