// Histograms aggregated in the bridge (histogram-tally.ts, tallied-histograms.ts) held to the SDK's
// own histograms as the oracle: on generated records (attribute sets in any key order, values on
// and between bucket bounds, negative, fractional, NaN and infinite values, an integer instrument
// and one without advice), with collections and the clock moving between them, a tallied meter and
// an SDK meter export the same histogram points, start and end times included, for a cumulative
// reader and a delta reader, through and past a reader's cardinality limit; each set given as a
// fresh object or, as the mapping gives its sets, as one frozen object shared by every record of
// it. One difference, on purpose: an attribute whose value is undefined is left out of the set (as
// the tallied counters do), so no value generated here is undefined; that case has a test of its
// own.
import fc from 'fast-check';
import { ValueType } from '@opentelemetry/api';
import type { Attributes } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AggregationTemporality,
  AggregationType,
  InstrumentType,
  MeterProvider,
  MetricReader,
} from '@opentelemetry/sdk-metrics';
import type { MetricProducer, ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TalliedHistograms } from '../../src/telemetry/metrics/tallied-histograms.js';
import { TallyingMeterProvider } from '../../src/telemetry/metrics/tallying-meter-provider.js';
import { sharedSet } from '../helpers/shared-sets.js';

class Reader extends MetricReader {
  constructor(
    temporality: AggregationTemporality,
    limit: number | undefined,
    metricProducers: MetricProducer[] = [],
    exponential = false,
  ) {
    super({
      aggregationTemporalitySelector: () => temporality,
      ...(limit === undefined ? {} : { cardinalitySelector: () => limit }),
      ...(exponential
        ? { aggregationSelector: () => ({ type: AggregationType.EXPONENTIAL_HISTOGRAM }) }
        : {}),
      metricProducers,
    });
  }
  protected onShutdown() {
    return Promise.resolve();
  }
  protected onForceFlush() {
    return Promise.resolve();
  }
}

const SCOPE = 'agent-otel-bridge';
const resource = resourceFromAttributes({ 'service.name': 'test' });

/** A meter provider of the SDK's and a tallied one, each with a reader of each temporality given. */
function pair(temporalities: AggregationTemporality[], limit?: number, exponential = false) {
  const sdkReaders = temporalities.map((t) => new Reader(t, limit, [], exponential));
  const sdk = new MeterProvider({ resource, readers: sdkReaders });
  const tallies = new TalliedHistograms(resource);
  const tallyReaders = temporalities.map((t) => {
    const producer = tallies.producer();
    const reader = new Reader(t, limit, [producer], exponential);
    producer.bind(reader);
    return reader;
  });
  const tallied = new TallyingMeterProvider(
    { resource, readers: tallyReaders },
    tallies,
    new Set([SCOPE]),
  );
  const instruments = (provider: MeterProvider) => {
    const meter = provider.getMeter(SCOPE, '1.2.3', { schemaUrl: 'https://example.com/s' });
    return [
      meter.createHistogram('bounded', {
        unit: 's',
        description: 'with bounds',
        advice: { explicitBucketBoundaries: [10, 0.5, 1, 5, Infinity] },
      }),
      meter.createHistogram('default', { unit: '{token}' }),
      meter.createHistogram('integer', {
        valueType: ValueType.INT,
        advice: { explicitBucketBoundaries: [1, 2, 4] },
      }),
    ];
  };
  return { sdkReaders, tallyReaders, sdk: instruments(sdk), tallied: instruments(tallied) };
}

/** The histogram metrics of a collection, their points in a set's order (points are unordered). */
function histograms(metrics: ResourceMetrics) {
  const setKey = (a: Attributes) => JSON.stringify(Object.entries(a).sort());
  return metrics.scopeMetrics
    .flatMap((s) => s.metrics.map((m) => ({ scope: s.scope, ...m })))
    .filter((m) => m.dataPoints.length > 0)
    .map((m) => ({
      ...m,
      dataPoints: [...m.dataPoints].sort((a, b) =>
        setKey(a.attributes) < setKey(b.attributes) ? -1 : 1,
      ),
    }))
    .sort((a, b) => (a.descriptor.name < b.descriptor.name ? -1 : 1));
}

const NAMES = ['gen_ai.request.model', 'error.type', 'n', 'flag'];
const attributeValue = fc.oneof(
  fc.constantFrom('a', 'b', '1', 'true', ''),
  fc.integer({ min: -1, max: 2 }),
  fc.boolean(),
  fc.constantFrom(['a', 'b'], [1], null),
);
const attributeSet = fc
  .uniqueArray(fc.tuple(fc.constantFrom(...NAMES), attributeValue), {
    selector: ([name]) => name,
    maxLength: 3,
  })
  .map((entries) => Object.fromEntries(entries) as Attributes);
const recordValue = fc.oneof(
  fc.constantFrom(0, 0.5, 1, 2, 4, 5, 10, 25, 10000, 10001, -0),
  fc.double({ min: -2, max: 20000, noNaN: true }),
  fc.constantFrom(-1, Number.NaN, Infinity, -Infinity, 1.5, 3.7),
);
type Op =
  | { kind: 'record'; instrument: number; value: number; attributes: Attributes; shared: boolean }
  | { kind: 'collect'; reader: number }
  | { kind: 'tick'; millis: number };
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('record' as const),
      instrument: fc.integer({ min: 0, max: 2 }),
      value: recordValue,
      attributes: attributeSet,
      // Given as the mapping gives its sets (frozen, one object per set and key order), or as a
      // fresh object.
      shared: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('collect' as const),
      reader: fc.integer({ min: 0, max: 1 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('tick' as const),
      millis: fc.integer({ min: 1, max: 5000 }),
    }),
  },
);

describe('histograms tallied in the bridge', () => {
  let clock = 1_700_000_000_000;
  afterEach(() => vi.restoreAllMocks());

  const { CUMULATIVE, DELTA } = AggregationTemporality;
  for (const [label, temporalities] of [
    ['cumulative', [CUMULATIVE]],
    ['delta', [DELTA]],
    ['a cumulative reader and a delta reader, collecting apart', [CUMULATIVE, DELTA]],
    ['two delta readers, collecting apart', [DELTA, DELTA]],
  ] as const)
    it(`export the same points as the SDK histograms fed the same records (${label})`, async () => {
      vi.spyOn(Date, 'now').mockImplementation(() => clock);
      await fc.assert(
        fc.asyncProperty(
          fc.array(op, { maxLength: 60 }),
          fc.constantFrom(undefined, 2, 3, 5),
          async (ops, limit) => {
            const { sdkReaders, tallyReaders, sdk, tallied } = pair([...temporalities], limit);
            const collect = async (r: number) => {
              const [expected, actual] = await Promise.all([
                sdkReaders[r]!.collect(),
                tallyReaders[r]!.collect(),
              ]);
              expect(histograms(actual.resourceMetrics)).toEqual(
                histograms(expected.resourceMetrics),
              );
            };
            const made = new Map<string, Attributes>();
            for (const o of ops) {
              if (o.kind === 'tick') clock += o.millis;
              else if (o.kind === 'collect') await collect(o.reader % temporalities.length);
              else {
                sdk[o.instrument]!.record(o.value, o.attributes);
                const given = o.shared ? sharedSet(made, o.attributes) : o.attributes;
                tallied[o.instrument]!.record(o.value, given);
              }
            }
            for (let r = 0; r < temporalities.length; r += 1) await collect(r);
          },
        ),
        { numRuns: 1000 },
      );
    });

  it('reports its points as a separate copy: a point exported is not changed by later records', async () => {
    const {
      tallyReaders: [tallyReader],
      tallied,
    } = pair([AggregationTemporality.CUMULATIVE]);
    tallied[0]!.record(1, { a: 'x' });
    const first = await tallyReader!.collect();
    const point = histograms(first.resourceMetrics)[0]!.dataPoints[0]!;
    const before = JSON.stringify(point);
    tallied[0]!.record(2, { a: 'x' });
    await tallyReader!.collect();
    expect(JSON.stringify(point)).toBe(before);
  });

  it('leaves an attribute whose value is undefined out of the set', async () => {
    const {
      tallyReaders: [tallyReader],
      tallied,
    } = pair([AggregationTemporality.CUMULATIVE]);
    tallied[0]!.record(1, { a: 'x', b: undefined });
    tallied[0]!.record(1, { a: 'x' });
    const [metric] = histograms((await tallyReader!.collect()).resourceMetrics);
    expect(metric!.dataPoints).toHaveLength(1);
    expect(metric!.dataPoints[0]!.attributes).toEqual({ a: 'x' });
    expect(Object.keys(metric!.dataPoints[0]!.attributes)).toEqual(['a']);
  });

  it('leaves histograms to the SDK where a reader aggregates them another way', async () => {
    const {
      tallyReaders: [tallyReader],
      tallied,
    } = pair([AggregationTemporality.CUMULATIVE], undefined, true);
    tallied[0]!.record(3, { a: 'x' });
    const [metric] = (await tallyReader!.collect()).resourceMetrics.scopeMetrics.flatMap(
      (s) => s.metrics,
    );
    expect(metric!.descriptor.name).toBe('bounded');
    // The SDK's exponential histogram: a scale, not explicit buckets.
    expect(metric!.dataPoints[0]!.value).toHaveProperty('scale');
  });

  it('refuses a reader added after its first histogram', () => {
    const tallies = new TalliedHistograms(resource);
    const producer = tallies.producer();
    producer.bind(new Reader(AggregationTemporality.CUMULATIVE, undefined, [producer]));
    tallies.histogram({ name: SCOPE, version: '', schemaUrl: undefined }, 'h', {});
    expect(() => tallies.producer()).toThrow(/after the first tallied histogram/);
    expect(InstrumentType.HISTOGRAM).toBe('HISTOGRAM');
  });
});
