// The library inside an application that runs its own NodeSDK (global providers).
import { context, trace } from '@opentelemetry/api';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualReader } from '../helpers/harness.js';
import { AgentRunIdGenerator, createAgentOtelSink, toSpanId } from '../../src/index.js';
import { RUN_A, RUN_B, toolRun } from '../helpers/behest-lines.js';

describe("composing with an application's NodeSDK", () => {
  const exporter = new InMemorySpanExporter();
  const reader = new ManualReader();
  const sdk = new NodeSDK({
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
    metricReaders: [reader],
    idGenerator: new AgentRunIdGenerator(),
    autoDetectResources: false,
    instrumentations: [],
  });

  beforeAll(() => sdk.start());
  afterAll(() => sdk.shutdown());

  it("lands the runs in the app's exporter with the bridge's ids, through the global API", async () => {
    // An in-process runtime hands its events over in order: nothing to hold or wait for.
    const sink = createAgentOtelSink({
      agentName: 'in-app',
      env: {},
      reorderWindowMillis: 0,
      lateGraceMillis: 0,
    });
    for (const line of toolRun(RUN_A)) sink.handleJson(line);
    await sink.flush();
    const spans = exporter.getFinishedSpans();
    const run = spans.find((s) => s.name === 'invoke_agent in-app');
    expect(run?.spanContext().traceId).toBe(RUN_A.replaceAll('-', ''));
    expect(run?.spanContext().spanId).toBe(toSpanId(RUN_A.replaceAll('-', ''), 'run'));
    expect(spans).toHaveLength(6);
    const { resourceMetrics } = await reader.collect();
    const names = resourceMetrics.scopeMetrics.flatMap((s) =>
      s.metrics.map((m) => m.descriptor.name),
    );
    expect(names).toContain('agent.runs');
    expect(names).toContain('gen_ai.client.token.usage');
  });

  it("joins the host's active span when given it as parent context", () => {
    exporter.reset();
    const host = trace.getTracer('host-app').startSpan('handle request');
    const sink = createAgentOtelSink({
      parentContext: trace.setSpan(context.active(), host),
      env: {},
      reorderWindowMillis: 0,
      lateGraceMillis: 0,
    });
    for (const line of toolRun(RUN_B)) sink.handleJson(line);
    host.end();
    const run = exporter.getFinishedSpans().find((s) => s.name === 'invoke_agent');
    expect(run?.spanContext().traceId).toBe(host.spanContext().traceId);
    expect(run?.parentSpanContext?.spanId).toBe(host.spanContext().spanId);
    expect(run?.attributes['agent.run.id']).toBe(RUN_B);
  });
});
