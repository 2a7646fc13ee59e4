// A bridge sink whose spans go through whole-run sampling (or straight on, without a policy) to an
// in-memory exporter, with a manual metric reader: what the sampling tests look at.
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { AgentRunIdGenerator } from '../../src/mapping/id-generator.js';
import { createBridgeSink } from '../../src/sink/bridge-sink.js';
import type { BridgeSink } from '../../src/sink/bridge-sink-api.js';
import type { RunSamplingPolicy } from '../../src/telemetry/sampling/run-sampling-policy.js';
import { RunSamplingProcessor } from '../../src/telemetry/sampling/run-sampling-processor.js';
import { ManualReader } from './harness.js';

export interface SampledSink {
  readonly sink: BridgeSink;
  readonly exporter: InMemorySpanExporter;
  /** The sampling processor; undefined without a policy. */
  readonly processor: RunSamplingProcessor | undefined;
  readonly reader: ManualReader;
  readonly tracerProvider: TracerProvider;
}

/** Events applied as they come (no reorder window, no grace), as the harness does. */
export function createSampledSink(policy: RunSamplingPolicy | undefined): SampledSink {
  const exporter = new InMemorySpanExporter();
  const simple = new SimpleSpanProcessor({ exporter });
  const reader = new ManualReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const processor =
    policy === undefined ? undefined : new RunSamplingProcessor(simple, policy, { meterProvider });
  const tracerProvider = new TracerProvider({
    idGenerator: new AgentRunIdGenerator(),
    spanProcessors: [processor ?? simple],
  });
  const sink = createBridgeSink({
    tracerProvider,
    meterProvider,
    env: {},
    reorderWindowMillis: 0,
    lateGraceMillis: 0,
  });
  return { sink, exporter, processor, reader, tracerProvider };
}
