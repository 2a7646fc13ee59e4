// A sink's mapping (reorder buffer and run tracker) on real SDK providers with in-memory
// exporters, for tests that drive the buffer and the tracker directly, with a clock of their own.
import { diag } from '@opentelemetry/api';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { resolveConfig } from '../../src/config.js';
import type { ResolvedConfig } from '../../src/config.js';
import { AgentRunIdGenerator } from '../../src/mapping/id-generator.js';
import { createSinkMapping } from '../../src/sink/sink-mapping.js';
import type { SinkMapping } from '../../src/sink/sink-mapping.js';
import { ManualReader } from './harness.js';

export interface TestMapping extends SinkMapping {
  readonly exporter: InMemorySpanExporter;
  readonly reader: ManualReader;
}

export function createTestMapping(config: ResolvedConfig): TestMapping {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({
    idGenerator: new AgentRunIdGenerator(),
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  const reader = new ManualReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  return { ...createSinkMapping(config, tracerProvider, meterProvider, diag), exporter, reader };
}

/** Every span exported so far, as name, times and attributes, sorted: runs compared whole. */
export function exportedSpans(exporter: InMemorySpanExporter): string[] {
  return exporter
    .getFinishedSpans()
    .map(
      (s) =>
        `${s.name} ${s.startTime.join('.')} ${s.endTime.join('.')} ${JSON.stringify(s.attributes)}`,
    )
    .sort();
}

/** A mapping whose reorder window and grace period are both `windowMillis`, on the clock `now`. */
export function createWindowedMapping(windowMillis: number, now: () => number): TestMapping {
  return createTestMapping(
    resolveConfig({
      env: {},
      reorderWindowMillis: windowMillis,
      lateGraceMillis: windowMillis,
      now,
    }),
  );
}
