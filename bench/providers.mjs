// Real SDK providers for the in-process benchmarks: ended spans go nowhere (what is measured is
// creating them, not exporting them) and metrics are collected once, by hand, at the end.
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { TracerProvider } from '@opentelemetry/sdk-trace';
import { AgentRunIdGenerator } from '../dist/index.js';

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

/** Providers for the bridge (its deterministic ids) or for the bare-SDK baseline (random ids). */
export function benchProviders({ bridgeIds = true } = {}) {
  const reader = new CollectOnce();
  return {
    tracerProvider: new TracerProvider({
      ...(bridgeIds ? { idGenerator: new AgentRunIdGenerator() } : {}),
      spanProcessors: [dropSpans],
    }),
    meterProvider: new MeterProvider({ readers: [reader] }),
    reader,
  };
}
