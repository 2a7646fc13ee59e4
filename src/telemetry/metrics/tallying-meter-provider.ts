import type { Histogram, Meter, MeterOptions, MetricOptions } from '@opentelemetry/api';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import type { MeterProviderOptions } from '@opentelemetry/sdk-metrics';
import type { TalliedHistograms } from './tallied-histograms.js';

/**
 * The SDK's meter provider, whose meters of the scopes named make their histograms tallied in
 * the bridge (`TalliedHistograms`, reported by the readers' producers); every other instrument,
 * and every other scope's meter, is the SDK's own.
 */
export class TallyingMeterProvider extends MeterProvider {
  constructor(
    options: MeterProviderOptions,
    private readonly histograms: TalliedHistograms,
    private readonly scopeNames: ReadonlySet<string>,
  ) {
    super(options);
  }

  override getMeter(name: string, version = '', options: MeterOptions = {}): Meter {
    const meter = super.getMeter(name, version, options);
    if (!this.scopeNames.has(name)) return meter;
    const scope = { name, version, schemaUrl: options.schemaUrl };
    const histograms = this.histograms;
    // The SDK's meter with a histogram of the bridge's: every other method is the SDK's, on the
    // SDK's meter (its prototype). One scope's histograms are one tally whichever meter made them.
    return Object.create(meter, {
      createHistogram: {
        value: (histogram: string, opts: MetricOptions = {}): Histogram =>
          histograms.histogram(scope, histogram, opts) ?? meter.createHistogram(histogram, opts),
      },
    }) as Meter;
  }
}
