import type { HrTime, MetricOptions } from '@opentelemetry/api';
import { millisToHrTime } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import { AggregationType, InstrumentType } from '@opentelemetry/sdk-metrics';
import type {
  CollectionResult,
  IMetricReader,
  MetricData,
  MetricProducer,
  ScopeMetrics,
} from '@opentelemetry/sdk-metrics';
import { HistogramTally } from './histogram-tally.js';

/** The SDK's attribute sets per instrument and reader in one interval, where a reader sets none. */
const DEFAULT_LIMIT = 2000;

/** An instrumentation scope, as the SDK's meter provider names one. */
export interface Scope {
  readonly name: string;
  readonly version: string;
  readonly schemaUrl: string | undefined;
}

/**
 * The histograms of one meter provider that are aggregated in the bridge (`HistogramTally`), and a
 * metric producer for each of its readers that reports them at the reader's collections, beside
 * what the SDK reports. Every reader is given its producer before the first histogram is made;
 * a histogram is tallied only where every reader aggregates histograms the SDK's default way
 * (explicit buckets, from the instrument's advice), so that what is exported is what the SDK would
 * have exported.
 */
export class TalliedHistograms {
  private readonly readers: (IMetricReader | undefined)[] = [];
  private readonly scopes = new Map<
    string,
    { scope: Scope; tallies: Map<string, HistogramTally> }
  >();
  private made = false;

  constructor(private readonly resource: Resource) {}

  /** The producer for one more reader; `bind` it to the reader once the reader is made. */
  producer(): MetricProducer & { bind(reader: IMetricReader): void } {
    if (this.made) throw new Error('a reader was added after the first tallied histogram');
    const index = this.readers.length;
    this.readers.push(undefined);
    return {
      bind: (reader) => {
        this.readers[index] = reader;
      },
      collect: () => Promise.resolve(this.collect(index)),
    };
  }

  /**
   * Scope `scope`'s histogram `name`, tallied; undefined where the readers would not aggregate it
   * the default way (or there are none), for the SDK to make it.
   */
  histogram(scope: Scope, name: string, options: MetricOptions): HistogramTally | undefined {
    if (!this.tallies()) return undefined;
    this.made = true;
    const key = `${scope.name}\0${scope.version}\0${scope.schemaUrl ?? ''}`;
    let found = this.scopes.get(key);
    if (found === undefined) {
      found = { scope, tallies: new Map() };
      this.scopes.set(key, found);
    }
    let tally = found.tallies.get(name);
    if (tally === undefined) {
      const limits = this.readers.map(
        (reader) => reader?.selectCardinalityLimit?.(InstrumentType.HISTOGRAM) ?? DEFAULT_LIMIT,
      );
      tally = new HistogramTally(name, options, limits);
      found.tallies.set(name, tally);
    }
    return tally;
  }

  private tallies(): boolean {
    return (
      this.readers.length > 0 &&
      this.readers.every(
        (reader) =>
          reader !== undefined &&
          reader.selectAggregation(InstrumentType.HISTOGRAM).type === AggregationType.DEFAULT,
      )
    );
  }

  private collect(index: number): CollectionResult {
    const reader = this.readers[index];
    const scopeMetrics: ScopeMetrics[] = [];
    if (reader !== undefined) {
      const temporality = reader.selectAggregationTemporality(InstrumentType.HISTOGRAM);
      const time: HrTime = millisToHrTime(Date.now());
      for (const { scope, tallies } of this.scopes.values()) {
        const metrics: MetricData[] = [];
        for (const tally of tallies.values()) {
          const data = tally.collect(index, temporality, time);
          if (data !== undefined) metrics.push(data);
        }
        if (metrics.length > 0)
          scopeMetrics.push({
            scope: {
              name: scope.name,
              version: scope.version,
              ...(scope.schemaUrl === undefined ? {} : { schemaUrl: scope.schemaUrl }),
            },
            metrics,
          });
      }
    }
    return { resourceMetrics: { resource: this.resource, scopeMetrics }, errors: [] };
  }
}
