import { diag, ValueType } from '@opentelemetry/api';
import type { Attributes, Histogram, HrTime, MetricOptions } from '@opentelemetry/api';
import { millisToHrTime } from '@opentelemetry/core';
import { AggregationTemporality, DataPointType, InstrumentType } from '@opentelemetry/sdk-metrics';
import type { HistogramMetricData, MetricDescriptor } from '@opentelemetry/sdk-metrics';
import { AttributePaths } from '../../mapping/metrics/attribute-paths.js';

/** The SDK's bounds when an instrument gives none (`HistogramAggregation`). */
const DEFAULT_BOUNDARIES = [
  0, 5, 10, 25, 50, 75, 100, 250, 500, 750, 1000, 2500, 5000, 7500, 10000,
];
const OVERFLOW: Attributes = { 'otel.metric.overflow': true };

/** Values recorded for one attribute set, since a reader's last collection or in all. */
interface Accumulation {
  startTime: HrTime;
  readonly counts: number[];
  sum: number;
  count: number;
  min: number;
  max: number;
}

/** One attribute set and, for each reader, what it was recorded since that reader's collection. */
interface SetState {
  readonly attributes: Attributes;
  readonly interval: (Accumulation | undefined)[];
  /** Cumulative readers: everything recorded before their last collection. */
  readonly total: (Accumulation | undefined)[];
  /** Delta readers: whether their last collection reported the set. */
  readonly reportedLast: boolean[];
}

/**
 * A histogram aggregated in the bridge for a fixed number of readers, with the SDK's explicit-bucket
 * aggregation, temporality and cardinality limit, reported through a metric producer
 * (`TalliedHistograms`): a record finds its attribute set by the attributes' names and values
 * (`AttributePaths`), where the SDK's histogram sorts, copies and hashes the set on every record.
 */
export class HistogramTally implements Histogram {
  /** As the SDK describes an instrument (its kind and advice beside the public fields). */
  readonly descriptor: MetricDescriptor & {
    readonly type: InstrumentType;
    readonly advice: MetricOptions['advice'];
  };
  private readonly boundaries: readonly number[];
  private readonly sets: AttributePaths<SetState>;
  /** Attribute sets recorded since each reader's last collection. */
  private readonly active: number[];
  private readonly lastCollection: (HrTime | undefined)[];

  /**
   * `limits`: for each reader, the attribute sets it takes in one interval (the set of those
   * over it included), as its `selectCardinalityLimit` says.
   */
  constructor(
    name: string,
    options: MetricOptions,
    private readonly limits: readonly number[],
  ) {
    const readers = limits.length;
    this.descriptor = {
      name,
      type: InstrumentType.HISTOGRAM,
      description: options.description ?? '',
      unit: options.unit ?? '',
      valueType: options.valueType ?? ValueType.DOUBLE,
      advice: options.advice ?? {},
    };
    this.boundaries = boundariesOf(options.advice?.explicitBucketBoundaries);
    this.sets = new AttributePaths((attributes) => ({
      attributes,
      interval: new Array<undefined>(readers).fill(undefined),
      total: new Array<undefined>(readers).fill(undefined),
      reportedLast: new Array<boolean>(readers).fill(false),
    }));
    this.active = new Array<number>(readers).fill(0);
    this.lastCollection = new Array<undefined>(readers).fill(undefined);
  }

  record(value: number, attributes: Attributes = {}): void {
    if (value < 0) {
      diag.warn(`negative value provided to histogram ${this.descriptor.name}: ${value}`);
      return;
    }
    if (typeof value !== 'number') {
      diag.warn(`non-number value provided to metric ${this.descriptor.name}: ${String(value)}`);
      return;
    }
    if (this.descriptor.valueType === ValueType.INT && !Number.isInteger(value)) {
      value = Math.trunc(value);
      if (!Number.isInteger(value)) return;
    }
    const set = this.sets.find(attributes);
    // NaN counts nowhere, but opens its set's point, as in the SDK.
    const bucket = Number.isNaN(value) ? -1 : bucketOf(this.boundaries, value);
    for (let r = 0; r < this.limits.length; r += 1) {
      const into = set.interval[r] ?? this.open(set, r);
      if (bucket < 0) continue;
      into.count += 1;
      into.sum += value;
      // Math's, as the SDK's: -0 is less than 0 here.
      into.min = Math.min(value, into.min);
      into.max = Math.max(value, into.max);
      into.counts[bucket]! += 1;
    }
  }

  /** The points of reader `r`'s collection at `time`; undefined where there is none. */
  collect(
    r: number,
    temporality: AggregationTemporality,
    time: HrTime,
  ): HistogramMetricData | undefined {
    const cumulative = temporality === AggregationTemporality.CUMULATIVE;
    const since = this.lastCollection[r];
    const dataPoints: HistogramMetricData['dataPoints'] = [];
    for (const set of this.sets.entries()) {
      const fresh = set.interval[r];
      set.interval[r] = undefined;
      let reported = fresh;
      if (cumulative) {
        const before = set.total[r];
        reported =
          before === undefined || fresh === undefined ? (before ?? fresh) : merge(before, fresh);
        set.total[r] = reported;
      } else {
        if (fresh !== undefined && set.reportedLast[r] && since !== undefined)
          fresh.startTime = since;
        set.reportedLast[r] = fresh !== undefined;
      }
      if (reported !== undefined)
        dataPoints.push(pointOf(set.attributes, reported, this.boundaries, time));
    }
    this.active[r] = 0;
    this.lastCollection[r] = time;
    if (dataPoints.length === 0) return undefined;
    return {
      descriptor: this.descriptor,
      aggregationTemporality: temporality,
      dataPointType: DataPointType.HISTOGRAM,
      dataPoints,
    };
  }

  /** The set's accumulation for reader `r`, or the overflow set's past the cardinality limit. */
  private open(set: SetState, r: number): Accumulation {
    let into = set;
    if (this.active[r]! >= this.limits[r]! - 1) {
      into = this.sets.find(OVERFLOW);
      const open = into.interval[r];
      if (open !== undefined) return open;
    }
    this.active[r]! += 1;
    const made: Accumulation = {
      startTime: millisToHrTime(Date.now()),
      counts: new Array<number>(this.boundaries.length + 1).fill(0),
      sum: 0,
      count: 0,
      min: Infinity,
      max: -Infinity,
    };
    into.interval[r] = made;
    return made;
  }
}

/** `fresh` added into `total` (which keeps its start). */
function merge(total: Accumulation, fresh: Accumulation): Accumulation {
  for (let i = 0; i < total.counts.length; i += 1) total.counts[i]! += fresh.counts[i]!;
  total.sum += fresh.sum;
  total.count += fresh.count;
  total.min = Math.min(total.min, fresh.min);
  total.max = Math.max(total.max, fresh.max);
  return total;
}

/** A point of its own: the accumulation goes on changing after it is exported. */
function pointOf(
  attributes: Attributes,
  a: Accumulation,
  boundaries: readonly number[],
  endTime: HrTime,
): HistogramMetricData['dataPoints'][number] {
  return {
    attributes,
    startTime: a.startTime,
    endTime,
    value: {
      // As the SDK: no least or greatest value before a value (NaN is none).
      ...(a.count > 0 ? { min: a.min, max: a.max } : {}),
      sum: a.sum,
      buckets: { boundaries: boundaries as number[], counts: a.counts.slice() },
      count: a.count,
    },
  };
}

/** The first bucket whose upper bound is at least `value` (the SDK's `binarySearchUB`). */
function bucketOf(boundaries: readonly number[], value: number): number {
  let lo = 0;
  let hi = boundaries.length - 1;
  let found = boundaries.length;
  while (hi >= lo) {
    const mid = lo + Math.trunc((hi - lo) / 2);
    if (boundaries[mid]! < value) lo = mid + 1;
    else {
      found = mid;
      hi = mid - 1;
    }
  }
  return found;
}

/** An instrument's bucket bounds as the SDK takes them: sorted, without infinities. */
function boundariesOf(advised: readonly number[] | undefined): readonly number[] {
  if (advised === undefined) return DEFAULT_BOUNDARIES;
  const sorted = [...advised].sort((a, b) => a - b);
  const end = sorted.indexOf(Infinity);
  return sorted.slice(sorted.lastIndexOf(-Infinity) + 1, end === -1 ? undefined : end);
}
