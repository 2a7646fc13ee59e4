import type { Meter } from '@opentelemetry/api';
import type { BrokerSource } from '../sources/broker-source.js';
import type { LeaseStore } from './lease-store.js';

/** What a partitioned source is made of: its partitions, leases and brokers, and whom it tells. */
export interface PartitionedSourceOptions {
  /** Partitions of the stream (`<subject>.<p>`, `<key>:<p>`). */
  readonly partitions: number;
  /** How long a lease lives without renewal: a dead owner's partitions move after at most this. */
  readonly leaseMillis: number;
  readonly description: string;
  readonly keepAliveMillis: number | undefined;
  /** The lease store, connected in `open()`. */
  readonly store: () => Promise<LeaseStore>;
  /**
   * The source that reads partition `p`; it tells `drained` the time each read that took all
   * there was to read was sent (see `BrokerSource.readToEnd`).
   */
  readonly partitionSource: (p: number, drained: (sentAt: number) => void) => BrokerSource;
  /** Before `p` is read: rebuild its checkpointed runs. */
  readonly beforeTake: (p: number) => Promise<void>;
  /**
   * Before `p` is handed over (its reading stopped, its lease still held): settle what can be
   * settled (checkpoint its open runs, export and acknowledge ended ones).
   */
  readonly beforeRelease: (p: number) => Promise<void>;
  /** `p` is no longer this instance's: forget its open runs, leaving its messages to the next owner. */
  readonly dropped: (p: number) => void;
  /** Ownership changes, said once each. */
  readonly report: (message: string) => void;
  /** For the instance's own metrics: partitions owned, ownership changes. */
  readonly meter?: Meter | undefined;
  /** Randomness for where to start looking for partitions and for back-off (tests fix it). */
  readonly random?: () => number;
}
