// "Flush means flush": a host that handles a run, flushes and exits loses nothing, with the
// default reorder window and grace period (a finished run is no longer held until its grace ends).
import { spawn } from 'node:child_process';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, InMemorySpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentRunIdGenerator, createAgentOtelSink, DEFAULTS } from '../../src/index.js';
import { behest, RUN_A, RUN_B, toolRun } from '../helpers/behest-lines.js';
import { ManualReader } from '../helpers/harness.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import type { OtlpReceiver } from '../helpers/otlp-receiver.js';

/** The spans of `toolRun`, by name, sorted. */
const TOOL_RUN_SPANS = [
  'agent.iteration',
  'agent.iteration',
  'chat gpt-4o-mini',
  'chat gpt-4o-mini',
  'execute_tool get_weather',
  'invoke_agent',
];

function providers() {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({
    idGenerator: new AgentRunIdGenerator(),
    // A batch processor with its default delay of 5 s: only a flush exports at once.
    spanProcessors: [new BatchSpanProcessor({ exporter })],
  });
  const reader = new ManualReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  return { exporter, tracerProvider, meterProvider, reader };
}

describe('flush', () => {
  it('exports a run that just ended, with the default reorder window and grace period', async () => {
    expect(DEFAULTS.reorderWindowMillis).toBeGreaterThan(0);
    expect(DEFAULTS.lateGraceMillis).toBeGreaterThan(0);
    const { exporter, tracerProvider, meterProvider } = providers();
    const sink = createAgentOtelSink({ tracerProvider, meterProvider, env: {} });
    for (const line of toolRun(RUN_A)) expect(sink.handleJson(line).outcome).toBe('accepted');
    expect(sink.stats().runs.completed).toBe(0);
    await sink.flush();
    expect(sink.stats().runs.completed).toBe(1);
    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => s.name).sort()).toEqual(TOOL_RUN_SPANS);
    await sink.shutdown();
  });

  it('leaves open runs open: their later events still land in the same run', async () => {
    const { exporter, tracerProvider, meterProvider } = providers();
    const sink = createAgentOtelSink({ tracerProvider, meterProvider, env: {} });
    const lines = toolRun(RUN_B);
    const last = lines.pop()!;
    for (const line of lines) sink.handleJson(line);
    await sink.flush();
    expect(sink.stats().runs).toMatchObject({ completed: 0, abandoned: 0 });
    expect(exporter.getFinishedSpans().some((s) => s.name === 'invoke_agent')).toBe(false);
    expect(sink.handleJson(last).outcome).toBe('accepted');
    await sink.flush();
    expect(sink.stats().runs).toMatchObject({ open: 0, completed: 1 });
    expect(exporter.getFinishedSpans().filter((s) => s.name === 'invoke_agent')).toHaveLength(1);
    await sink.shutdown();
  });

  it('applies what was held for an ended run in time order before ending it', async () => {
    const { exporter, tracerProvider, meterProvider } = providers();
    const sink = createAgentOtelSink({ tracerProvider, meterProvider, env: {} });
    // Usage displaced after the terminal event: still on its model call, and in order.
    const lines = toolRun(RUN_A);
    const usage = lines.findIndex((l) => l.includes('UsageRecorded'));
    const [moved] = lines.splice(usage, 1);
    for (const line of [...lines, moved!]) sink.handleJson(line);
    await sink.flush();
    const chat = exporter.getFinishedSpans().find((s) => s.name === 'chat gpt-4o-mini');
    expect(chat?.attributes['gen_ai.usage.input_tokens']).toBe(412);
    expect(sink.stats().events).toMatchObject({ late: 0, rejected: 0 });
    await sink.shutdown();
  });

  it('accepts reorderWindowEvents: 0 and lateGraceMillis: 0 (nothing held)', async () => {
    const { exporter, tracerProvider, meterProvider } = providers();
    const sink = createAgentOtelSink({
      tracerProvider,
      meterProvider,
      env: {},
      reorderWindowEvents: 0,
      lateGraceMillis: 0,
    });
    for (const line of toolRun(RUN_A)) sink.handleJson(line);
    // Nothing was held: the run ended with its terminal event.
    expect(sink.stats().runs.completed).toBe(1);
    await tracerProvider.forceFlush();
    expect(exporter.getFinishedSpans()).toHaveLength(6);
    await sink.shutdown();
  });

  it('shutdown ends only the runs still open as abandoned', async () => {
    const { tracerProvider, meterProvider } = providers();
    const sink = createAgentOtelSink({ tracerProvider, meterProvider, env: {} });
    for (const line of toolRun(RUN_A)) sink.handleJson(line);
    sink.handleJson(behest('RunStarted', RUN_B, '00.000', { provider: 'openai' }));
    await sink.shutdown();
    expect(sink.stats().runs).toMatchObject({ open: 0, completed: 1, abandoned: 1 });
  });
});

describe('a short-lived host', () => {
  let receiver: OtlpReceiver | undefined;
  afterEach(async () => receiver?.close());

  it('handles a run, flushes and exits at once: the collector has every span and metric', async () => {
    receiver = await startOtlpReceiver();
    const child = spawn(process.execPath, ['test/helpers/short-lived-host.mjs'], {
      env: {
        PATH: process.env['PATH'],
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stdin.end(toolRun(RUN_A).join('\n'));
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const names = receiver.spans.map((s) => s.name).sort();
    expect(names).toEqual(TOOL_RUN_SPANS);
    const runs = receiver.metrics.find((m) => m.name === 'agent.runs');
    expect(runs?.points.reduce((sum, p) => sum + Number(p.value), 0)).toBe(1);
    expect(receiver.metrics.map((m) => m.name)).toContain('gen_ai.client.token.usage');
  });
});
