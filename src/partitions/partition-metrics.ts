import type { Meter } from '@opentelemetry/api';

/** What a partitioned source says of itself in the instance's own metrics. */
export interface PartitionMetrics {
  readonly changed: (change: 'taken' | 'handed_over' | 'lost') => void;
  /** From taking a lease to reading the partition. */
  readonly tookOver: (seconds: number) => void;
  /** How late a round of renewals started. */
  readonly renewedLate: (seconds: number) => void;
}

/**
 * The `agent_bridge.partitions.*` instruments (docs/telemetry-contract.md): partitions read now
 * and each one's lag (observed from `reading` and `lags`), ownership changes, takeover durations
 * and renewal lateness. Without a meter, nothing is recorded.
 */
export function createPartitionMetrics(
  meter: Meter | undefined,
  reading: () => number,
  lags: () => ReadonlyMap<number, number>,
): PartitionMetrics {
  meter
    ?.createObservableGauge('agent_bridge.partitions.owned', {
      description: 'Partitions this instance holds leases on',
      unit: '{partition}',
    })
    .addCallback((result) => result.observe(reading()));
  meter
    ?.createObservableGauge('agent_bridge.partitions.lag', {
      description: 'Messages of an owned partition not yet delivered to this instance',
      unit: '{message}',
    })
    .addCallback((result) => {
      for (const [p, lag] of lags()) result.observe(lag, { 'agent_bridge.partition': String(p) });
    });
  const changes = meter?.createCounter('agent_bridge.partitions.changes', {
    description: 'Partition ownership changes of this instance',
    unit: '{partition}',
  });
  const takeovers = meter?.createHistogram('agent_bridge.partitions.takeover.duration', {
    description: 'From taking a partition lease to reading the partition, its runs restored',
    unit: 's',
    advice: { explicitBucketBoundaries: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30] },
  });
  const lateness = meter?.createHistogram('agent_bridge.partitions.renewal.lateness', {
    description: 'How late a round of lease renewals started against its schedule',
    unit: 's',
    advice: { explicitBucketBoundaries: [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5] },
  });
  return {
    changed: (change) => changes?.add(1, { 'agent_bridge.partition.change': change }),
    tookOver: (seconds) => takeovers?.record(seconds),
    renewedLate: (seconds) => lateness?.record(seconds),
  };
}
