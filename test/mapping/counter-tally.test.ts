// The mapping's counters are summed in the bridge and observed at collection (counter-tally.ts).
// Held to the SDK's own counters as the oracle: on generated adds (attribute sets in any key
// order, undefined values, values that look like the key's separators, negative values), a
// tallied counter and an SDK counter fed the same adds export the same points, for a monotonic
// counter and an up-down counter, collected cumulatively and as deltas. One difference, on
// purpose: an attribute whose value is undefined is left out of the set (see `defined`); and
// under delta temporality a set that did not change is a zero point (compared apart).
import fc from 'fast-check';
import type { Attributes } from '@opentelemetry/api';
import { AggregationTemporality, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import type { DataPoint } from '@opentelemetry/sdk-metrics';
import { describe, expect, it } from 'vitest';
import { talliedCounter } from '../../src/mapping/metrics/counter-tally.js';

class Reader extends MetricReader {
  constructor(temporality: AggregationTemporality) {
    super({ aggregationTemporalitySelector: () => temporality });
  }
  protected onShutdown() {
    return Promise.resolve();
  }
  protected onForceFlush() {
    return Promise.resolve();
  }
}

const NAMES = ['gen_ai.agent.name', 'gen_ai.request.model', 'agent.outcome', 'n'];
// Values chosen to collide if a key were a plain join: separators, lengths and digits.
const value = fc.oneof(
  fc.constantFrom('a', 'b', 'a:1', '1:a', 's1:a', ':', ';', '', 'n1;', '0'),
  fc.string({ maxLength: 4 }),
  fc.integer({ min: -2, max: 2 }),
  fc.boolean(),
  fc.constant(undefined),
);
const attributeSet = fc
  .uniqueArray(fc.tuple(fc.constantFrom(...NAMES), value), {
    selector: ([name]) => name,
    maxLength: 4,
  })
  // Any key order: the same set is often given with its keys in another order.
  .chain((entries) => fc.shuffledSubarray(entries, { minLength: entries.length }))
  .map((entries) => Object.fromEntries(entries) as Attributes);

/**
 * The SDK keeps `{ k: undefined }` apart from `{}` and exports both, as two points that every
 * exporter writes with the same attributes; the tally takes them as one set. The SDK is fed the
 * set as exported.
 */
const defined = (attributes: Attributes): Attributes =>
  Object.fromEntries(Object.entries(attributes).filter(([, v]) => v !== undefined));

/** The order of an attribute set's keys means nothing. */
const sorted = (attributes: Attributes): Attributes =>
  Object.fromEntries(Object.entries(attributes).sort(([a], [b]) => a.localeCompare(b)));

type Point = { attributes: Attributes; value: number };

async function collect(reader: Reader, name: string): Promise<Point[]> {
  const { resourceMetrics } = await reader.collect();
  return resourceMetrics.scopeMetrics
    .flatMap((s) => s.metrics)
    .filter((m) => m.descriptor.name === name)
    .flatMap((m) => m.dataPoints as DataPoint<number>[])
    .map((p) => ({ attributes: sorted(p.attributes), value: p.value }))
    .sort((a, b) => JSON.stringify(a.attributes).localeCompare(JSON.stringify(b.attributes)));
}

describe('a tallied counter', () => {
  it('exports the same points as the SDK counter fed the same adds, cumulative and delta', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<'counter' | 'up_down_counter'>('counter', 'up_down_counter'),
        fc.constantFrom(AggregationTemporality.CUMULATIVE, AggregationTemporality.DELTA),
        // Rounds of adds, each followed by a collection.
        fc.array(
          fc.array(fc.tuple(fc.integer({ min: -3, max: 50 }), attributeSet), { maxLength: 30 }),
          { minLength: 1, maxLength: 3 },
        ),
        async (kind, temporality, rounds) => {
          const tallyReader = new Reader(temporality);
          const sdkReader = new Reader(temporality);
          const tallyMeter = new MeterProvider({ readers: [tallyReader] }).getMeter('t');
          const sdkMeter = new MeterProvider({ readers: [sdkReader] }).getMeter('t');
          const tally = talliedCounter(tallyMeter, 'c', { unit: '{x}' }, kind);
          const sdk =
            kind === 'counter'
              ? sdkMeter.createCounter('c', { unit: '{x}' })
              : sdkMeter.createUpDownCounter('c', { unit: '{x}' });
          for (const adds of rounds) {
            for (const [n, attributes] of adds) {
              tally.add(n, attributes);
              sdk.add(n, defined(attributes));
            }
            // A delta reader gets a zero point for a set that did not change, as from any
            // observable counter, where the SDK's counter exports none: zeros are compared apart.
            const nonZero = (points: Point[]) =>
              temporality === AggregationTemporality.DELTA
                ? points.filter((p) => p.value !== 0)
                : points;
            expect(nonZero(await collect(tallyReader, 'c'))).toStrictEqual(
              nonZero(await collect(sdkReader, 'c')),
            );
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('is one tally per meter: sinks writing to one meter provider add up in one point', async () => {
    const reader = new Reader(AggregationTemporality.CUMULATIVE);
    const provider = new MeterProvider({ readers: [reader] });
    const first = talliedCounter(provider.getMeter('m'), 'runs', {});
    const second = talliedCounter(provider.getMeter('m'), 'runs', {});
    first.add(2, { outcome: 'completed' });
    second.add(3, { outcome: 'completed' });
    expect(await collect(reader, 'runs')).toEqual([
      { attributes: { outcome: 'completed' }, value: 5 },
    ]);
  });
});
