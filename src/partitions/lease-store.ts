/**
 * Partition leases and instance membership, held in the broker itself (JetStream KV, Redis keys):
 * at most one owner per partition at a time, lost when the owner stops renewing within the lease
 * time.
 */
export interface LeaseStore {
  /** Says this instance is alive; resolves with the number of live instances (itself included). */
  heartbeat(): Promise<number>;
  /** Takes partition `p` if nobody holds it. */
  acquire(p: number): Promise<boolean>;
  /** Extends this instance's lease on `p`; false when it was lost (expired, taken). */
  renew(p: number): Promise<boolean>;
  /** Gives `p` up (only if this instance holds it). */
  release(p: number): Promise<void>;
  /** Leaves the membership and disconnects. */
  close(): Promise<void>;
}
