// Real SDK providers for the in-process benchmarks: ended spans go nowhere (what is measured is
// creating them, not exporting them) and metrics are collected once, by hand, at the end.
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { TracerProvider } from '@opentelemetry/sdk-trace';
import { AgentRunIdGenerator } from '../dist/index.js';
import { LeanTracerProvider } from '../dist/telemetry/spans/lean-tracer-provider.js';

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
 * `lean`: the tracer provider `startTelemetry` makes (the SDK's, starting lean spans).
 */
export function benchProviders({ bridgeIds = true, lean = false } = {}) {
  const reader = new CollectOnce();
  const Provider = lean ? LeanTracerProvider : TracerProvider;
  return {
    tracerProvider: new Provider({
      ...(bridgeIds ? { idGenerator: new AgentRunIdGenerator() } : {}),
      spanProcessors: [dropSpans],
    }),
    meterProvider: new MeterProvider({ readers: [reader] }),
    reader,
  };
}
