import type { Meter } from '@opentelemetry/api';
import type { BridgeSink } from '../sink/bridge-sink-api.js';
import type { DeliveryLedger } from '../sources/delivery-ledger.js';
import type { CheckpointStore } from './checkpoint-store.js';

/** What open runs' checkpoints are kept with: the store, the sink, the ledger and how often. */
export interface RunCheckpointsOptions {
  readonly store: CheckpointStore;
  readonly sink: Pick<BridgeSink, 'restoreRun' | 'markFinished' | 'metricWritesOf' | 'dropRun'>;
  readonly ledger: DeliveryLedger;
  /** A run holding this many unacknowledged messages is checkpointed (and again per as many more). */
  readonly everyMessages: number;
  readonly content: { readonly capture: boolean; readonly maxTextChars: number };
  /** Said once per kind of trouble. */
  readonly report: (message: string) => void;
  /** The clock metric collections are timed by (epoch milliseconds). */
  readonly now?: () => number;
  /**
   * Whether this instance may still write the partition's checkpoints (it owns the partition and
   * its lease cannot have lapsed); asked right before each write. Without partitions: always.
   */
  readonly mayWrite?: ((partition: number) => boolean) | undefined;
  /** For the instance's own metrics. */
  readonly meter?: Meter | undefined;
}
