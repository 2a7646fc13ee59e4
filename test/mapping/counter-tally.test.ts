// The mapping's counters are summed in the bridge and observed at collection (counter-tally.ts).
// Held to the SDK's own counters as the oracle: on generated adds (attribute sets in any key
// order, undefined and null values, values that look like the key's separators or like another
// value's JSON, negative values; each set given as a fresh object or, as the mapping gives its
// sets, as one frozen object shared by every add of it), a tallied counter and an SDK counter fed
// the same adds export the same points, for a monotonic counter and an up-down counter, collected
// cumulatively and as deltas. One difference, on purpose: an attribute whose value is undefined is
// left out of the set (see `defined`); and under delta temporality a set that did not change is a
// zero point (compared apart).
import fc from 'fast-check';
import type { Attributes, AttributeValue } from '@opentelemetry/api';
import { AggregationTemporality, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import type { DataPoint } from '@opentelemetry/sdk-metrics';
import { describe, expect, it } from 'vitest';
import { talliedCounter } from '../../src/mapping/metrics/counter-tally.js';
import { sharedSet } from '../helpers/shared-sets.js';

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
// Values chosen to collide if a key were a plain join or lost a value's type: separators,
// lengths and digits, a number and its text, a boolean and its text, a list and its items.
const value = fc.oneof(
  fc.constantFrom('a', 'b', 'a:1', '1:a', 's1:a', ':', ';', '', 'n1;', '1', 'true', 'a,b'),
  // Text that is another value's JSON: a list's, and null's.
  fc.constantFrom('["a","b"]', '[1]', '["1"]', 'null'),
  fc.constant(null),
  fc.string({ maxLength: 4 }),
  fc.integer({ min: -2, max: 2 }),
  fc.boolean(),
  fc.constantFrom(['a', 'b'], ['a,b'], [1], ['1'], ['true'], [true]),
  fc.constantFrom(['a', 'b'], [1], ['true']),
  fc.constant(undefined),
);
const attributeSet = fc
  .uniqueArray(fc.tuple(fc.constantFrom(...NAMES), value), {
    selector: ([name]) => name,
    maxLength: 4,
  })
  .map((entries) => Object.fromEntries(entries) as Attributes);

/** A value of another type written the same, or of the same type written differently. */
function twin(v: AttributeValue, other: boolean): AttributeValue {
  if (v === null) return other ? 'null' : ['null'];
  if (typeof v === 'number') return other ? String(v) : v + 1;
  if (typeof v === 'boolean') return other ? String(v) : !v;
  if (typeof v === 'string') {
    if (/^-?\d+$/.test(v)) return other ? Number(v) : `${v}0`;
    return other ? v.split(',') : `${v}x`;
  }
  const list = v as readonly (string | number | boolean)[];
  const text = list.map(String);
  if (other) return text.join(',');
  // The same text in other items (`a`, `b` and `a,b`), an item of another type (1 and '1'),
  // or one item more.
  if (list.length > 1) return [text.join(',')];
  if (typeof list[0] === 'number') return text;
  if (typeof list[0] === 'string' && /^-?\d+$/.test(list[0])) return [Number(list[0])];
  return [...text, 'x'];
}

/**
 * Adds over a few attribute sets that differ in one value each (its type alone, or its value),
 * each add naming one of them with its keys in an order of its own: one set is given in several
 * key orders, and sets that a key losing a value or its type would merge are kept apart.
 */
const adds = attributeSet
  .chain((base) =>
    fc
      .array(fc.tuple(fc.constantFrom(...NAMES), fc.boolean()), { maxLength: 4 })
      .map((changes) => [
        base,
        ...changes
          .filter(([name]) => base[name] !== undefined)
          .map(([name, other]) => ({ ...base, [name]: twin(base[name], other) })),
      ]),
  )
  .chain((sets) =>
    fc.array(
      fc.tuple(
        fc.integer({ min: -3, max: 50 }),
        fc.nat({ max: sets.length - 1 }).chain((k) =>
          fc
            .shuffledSubarray(Object.entries(sets[k]!), {
              minLength: Object.keys(sets[k]!).length,
            })
            .map((entries) => Object.fromEntries<Attributes[string]>(entries)),
        ),
        // Given as the mapping gives its sets (frozen, one object per set and key order), or as
        // a fresh object.
        fc.boolean(),
      ),
      { maxLength: 30 },
    ),
  );

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
        fc.array(adds, { minLength: 1, maxLength: 3 }),
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
          const made = new Map<string, Attributes>();
          for (const adds of rounds) {
            for (const [n, attributes, shared] of adds) {
              tally.add(n, shared ? sharedSet(made, attributes) : attributes);
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
      { numRuns: 300 },
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
