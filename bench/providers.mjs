// Real SDK providers for the in-process benchmarks: ended spans go nowhere (what is measured is
// creating them, not exporting them) and metrics are collected once, by hand, at the end.
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { TracerProvider } from '@opentelemetry/sdk-trace';
import { AgentRunIdGenerator } from '../dist/index.js';
import { LeanTracerProvider } from '../dist/telemetry/spans/lean-tracer-provider.js';
import { TalliedHistograms } from '../dist/telemetry/metrics/tallied-histograms.js';
import { TallyingMeterProvider } from '../dist/telemetry/metrics/tallying-meter-provider.js';
import { PACKAGE_NAME } from '../dist/version.js';

class CollectOnce extends MetricReader {
  onShutdown() {
    return Promise.resolve();
  }
  onForceFlush() {
    return Promise.resolve();
  }
}

const dropSpans = {
  onStart() {},
  onEnd() {},
  forceFlush: () => Promise.resolve(),
  shutdown: () => Promise.resolve(),
};

/**
 * Providers for the bridge (its deterministic ids) or for the bare-SDK baseline (random ids);
 * `lean`: the providers `startTelemetry` makes (the SDK's tracer provider starting lean spans, and
 * the SDK's meter provider with the bridge's histograms tallied in the bridge); `spanProcessor`:
 * where ended spans go (by default, nowhere).
 */
export function benchProviders({ bridgeIds = true, lean = false, spanProcessor = dropSpans } = {}) {
  const Provider = lean ? LeanTracerProvider : TracerProvider;
  const tracerProvider = new Provider({
    ...(bridgeIds ? { idGenerator: new AgentRunIdGenerator() } : {}),
    spanProcessors: [spanProcessor],
  });
  if (!lean) {
    const reader = new CollectOnce();
    return { tracerProvider, meterProvider: new MeterProvider({ readers: [reader] }), reader };
  }
  const histograms = new TalliedHistograms(undefined);
  const producer = histograms.producer();
  const reader = new CollectOnce({ metricProducers: [producer] });
  producer.bind(reader);
  const meterProvider = new TallyingMeterProvider(
    { readers: [reader] },
    histograms,
    new Set([PACKAGE_NAME]),
  );
  return { tracerProvider, meterProvider, reader };
}
