// Spans and metrics name the semantic conventions they follow, so that a backend can translate them.
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { expect, it } from 'vitest';
import { createAgentOtelSink } from '../../src/index.js';
import { SCHEMA_URL } from '../../src/version.js';
import { behest, RUN_A } from '../helpers/behest-lines.js';
import { ManualReader } from '../helpers/harness.js';

it('carries the schema URL of the conventions on spans and metrics', async () => {
  const exporter = new InMemorySpanExporter();
  const reader = new ManualReader();
  const sink = createAgentOtelSink({
    tracerProvider: new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }),
    meterProvider: new MeterProvider({ readers: [reader] }),
    env: {},
    reorderWindowMillis: 0,
    lateGraceMillis: 0,
  });
  sink.handleJson(behest('RunStarted', RUN_A, '00', {}));
  sink.handleJson(behest('RunCompleted', RUN_A, '01', {}));
  expect(SCHEMA_URL).toBe('https://opentelemetry.io/schemas/1.41.0');
  expect(exporter.getFinishedSpans()[0]?.instrumentationScope.schemaUrl).toBe(SCHEMA_URL);
  const { resourceMetrics } = await reader.collect();
  expect(resourceMetrics.scopeMetrics[0]?.scope.schemaUrl).toBe(SCHEMA_URL);
});
