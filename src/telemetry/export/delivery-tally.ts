import type { RunSummary } from '../../mapping/tracker-context.js';
import type { ExportListener, SpansByTrace } from './export-watcher.js';

/**
 * What reached the collector: spans that ended runs made against spans the collector
 * acknowledged, metric exports that failed, and whether the collector is in trouble now. A finite
 * run says from it what it did not deliver; a server refuses new input while the backlog is too
 * large or an export is being retried, so that it never accepts what it may not keep.
 */
export class DeliveryTally implements ExportListener {
  private made = 0;
  private acknowledged = 0;
  private sampledOut = 0;
  private metricFailures = 0;
  private retrying = false;

  /** Told once at the start of each collector outage (a command says it). */
  onOutage: ((error: Error | undefined) => void) | undefined;

  /** The extra destinations' own tallies, by name. */
  private readonly destinations = new Map<string, DeliveryTally>();

  /** @param exportsSpans whether spans go to a collector at all (else none are owed). */
  constructor(private readonly exportsSpans: boolean) {}

  /** An extra destination's own tally: the same spans owed, its own deliveries. */
  destination(name: string, exportsSpans: boolean): DeliveryTally {
    let tally = this.destinations.get(name);
    if (tally === undefined) this.destinations.set(name, (tally = new DeliveryTally(exportsSpans)));
    return tally;
  }

  /** Told when nothing answered at the collector's address at start. */
  onUnreachable: ((problem: string) => void) | undefined;

  outageStarted(error: Error | undefined): void {
    this.onOutage?.(error);
  }

  collectorUnreachable(problem: string): void {
    this.onUnreachable?.(problem);
  }

  /** The sink's `onRunEnd`. */
  runEnded(run: RunSummary): void {
    if (this.exportsSpans) this.made += run.spanCount;
    for (const tally of this.destinations.values()) tally.runEnded(run);
  }

  spansExported(spans: SpansByTrace): void {
    for (const ids of spans.values()) this.acknowledged += ids.length;
    this.retrying = false;
  }

  spansSampledOut(spans: SpansByTrace): void {
    for (const ids of spans.values()) this.sampledOut += ids.length;
    for (const tally of this.destinations.values()) tally.spansSampledOut(spans);
  }

  spansFailed(): void {
    // What failed is what is missing at the end.
  }

  exportRetrying(): void {
    this.retrying = true;
  }

  metricsExported(): void {
    // Only failures are told.
  }

  metricsFailed(): void {
    this.metricFailures += 1;
  }

  /** Spans made and not yet acknowledged (queued, in flight, being retried, or lost). */
  get backlog(): number {
    return Math.max(0, this.made - this.acknowledged - this.sampledOut);
  }

  /** Whether an export is being retried now (the collector refuses or does not answer). */
  get inOutage(): boolean {
    return this.retrying;
  }

  /** After the providers shut down. */
  result(): Delivered {
    // Spans sampling dropped are not owed: `spans` counts those that were to be delivered.
    const owed = Math.max(0, this.made - this.sampledOut);
    return {
      spans: owed,
      delivered: Math.min(this.acknowledged, owed),
      metricFailures: this.metricFailures,
      sampledOut: this.sampledOut,
      ...(this.destinations.size === 0
        ? {}
        : {
            destinations: [...this.destinations].map(([name, tally]) => {
              const { spans, delivered, metricFailures } = tally.result();
              return { name, spans, delivered, metricFailures };
            }),
          }),
    };
  }
}

/** What reached the collector, and each extra destination. */
export interface Delivered {
  readonly spans: number;
  readonly delivered: number;
  readonly metricFailures: number;
  readonly sampledOut?: number;
  readonly destinations?: readonly DestinationDelivery[];
}

export interface DestinationDelivery {
  readonly name: string;
  readonly spans: number;
  readonly delivered: number;
  readonly metricFailures: number;
}
