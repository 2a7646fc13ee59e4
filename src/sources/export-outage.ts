type Signal = 'spans' | 'metrics';

/** Told when exports begin to fail, and when they succeed again. */
export interface OutageNews {
  /** The exporter started failing (said once per outage). */
  outage(message: string): void;
  /** Exports succeed again. */
  recovered(): void;
}

const FIRST_DELAY_MILLIS = 1000;

/**
 * Whether the collector is failing (an outage lasts while either signal's last export failed,
 * and is said once), and how long a failed run's messages wait before they are redelivered: the
 * delay doubles with each failed span export of an outage, up to a bound, and starts again once
 * spans export. A failure superseded by a later export's success (a request that hung past the
 * collector's recovery) says no outage and lengthens no delay: the collector answers.
 */
export class ExportOutage {
  private readonly failing = new Set<Signal>();
  private delay = FIRST_DELAY_MILLIS;

  constructor(
    private readonly news: OutageNews,
    private readonly maxDelayMillis: number,
  ) {}

  /** The delay for the messages of runs whose export fails now. */
  get redeliveryDelayMillis(): number {
    return this.delay;
  }

  exported(signal: Signal): void {
    if (signal === 'spans') this.delay = FIRST_DELAY_MILLIS;
    if (!this.failing.delete(signal) || this.failing.size > 0) return;
    this.news.recovered();
  }

  /** An export of `signal` failed; `message` says how, if this opens an outage. */
  failed(signal: Signal, message: string, superseded: boolean): void {
    if (superseded) return;
    const wasFailing = this.failing.size > 0;
    this.failing.add(signal);
    if (!wasFailing) this.news.outage(message);
  }

  /** The runs of a failed span export were given their delay: the next failure waits longer. */
  lengthen(superseded: boolean): void {
    if (!superseded) this.delay = Math.min(this.delay * 2, this.maxDelayMillis);
  }
}
