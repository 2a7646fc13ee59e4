// An instance's own partition metrics are described as docs/telemetry-contract.md's table says:
// kind, unit, named buckets and a description, each point with the attributes the table names
// (the lag per partition, the change by kind). Read from a real meter provider.
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import type { Histogram } from '@opentelemetry/sdk-metrics';
import { describe, expect, it } from 'vitest';
import { createPartitionMetrics } from '../../src/partitions/partition-metrics.js';
import { ManualReader } from '../helpers/harness.js';
import { contractMetrics, KINDS } from '../helpers/contract-metrics.js';

describe('partition metrics', () => {
  it('gives each metric the kind, unit, buckets, description and attributes the contract names', async () => {
    const reader = new ManualReader();
    const provider = new MeterProvider({ readers: [reader] });
    const metrics = createPartitionMetrics(
      provider.getMeter('test'),
      () => 3,
      () =>
        new Map([
          [2, 40],
          [5, 0],
        ]),
    );
    metrics.changed('taken');
    metrics.changed('taken');
    metrics.changed('lost');
    metrics.tookOver(0.2);
    metrics.renewedLate(0.003);
    const { resourceMetrics } = await reader.collect();
    const seen = new Map(
      resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).map((m) => [m.descriptor.name, m]),
    );
    const contract = contractMetrics();
    for (const name of [
      'agent_bridge.partitions.owned',
      'agent_bridge.partitions.changes',
      'agent_bridge.partitions.lag',
      'agent_bridge.partitions.renewal.lateness',
      'agent_bridge.partitions.takeover.duration',
    ]) {
      const row = contract.get(name);
      const metric = seen.get(name);
      expect(row, `${name} in the contract's table`).toBeDefined();
      expect(metric, `${name} recorded`).toBeDefined();
      expect(metric!.descriptor.unit, `${name} unit`).toBe(row!.unit);
      expect(KINDS[row!.kind], `${name} kind`).toContain(metric!.dataPointType);
      expect(metric!.descriptor.description.length, `${name} description`).toBeGreaterThan(10);
      if (row!.buckets !== undefined) {
        const boundaries = (metric!.dataPoints[0]!.value as Histogram).buckets.boundaries;
        expect([boundaries[0], boundaries.at(-1)], `${name} buckets`).toEqual(row!.buckets);
      }
    }
    const points = (name: string) => seen.get(name)!.dataPoints.map((p) => [p.attributes, p.value]);
    expect(points('agent_bridge.partitions.owned')).toEqual([[{}, 3]]);
    expect(points('agent_bridge.partitions.lag')).toEqual([
      [{ 'agent_bridge.partition': '2' }, 40],
      [{ 'agent_bridge.partition': '5' }, 0],
    ]);
    expect(points('agent_bridge.partitions.changes')).toEqual([
      [{ 'agent_bridge.partition.change': 'taken' }, 2],
      [{ 'agent_bridge.partition.change': 'lost' }, 1],
    ]);
    const takeover = seen.get('agent_bridge.partitions.takeover.duration')!.dataPoints[0]!
      .value as Histogram;
    expect([takeover.count, takeover.sum]).toEqual([1, 0.2]);
    // The takeover histogram's buckets reach past a lease time.
    expect(takeover.buckets.boundaries.at(-1)).toBeGreaterThanOrEqual(30);
  });

  it('records nothing without a meter', () => {
    const metrics = createPartitionMetrics(
      undefined,
      () => 1,
      () => new Map(),
    );
    expect(() => {
      metrics.changed('taken');
      metrics.tookOver(1);
      metrics.renewedLate(1);
    }).not.toThrow();
  });
});
