// Property tests: any sequence of events — valid, reordered, duplicated, truncated runs, across
// concurrent runs — never throws, leaves no span open after shutdown, and is deterministic.
import type { Context } from '@opentelemetry/api';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import type { DataPoint } from '@opentelemetry/sdk-metrics';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualReader } from '../helpers/harness.js';
import { AgentRunIdGenerator, createAgentOtelSink } from '../../src/index.js';
import type { AgentEvent, RunSummary } from '../../src/index.js';

/** Counts spans started and ended. */
class Census implements SpanProcessor {
  started = 0;
  ended = 0;
  onStart(_span: Span, _context: Context): void {
    this.started += 1;
  }
  onEnd(_span: ReadableSpan): void {
    this.ended += 1;
  }
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

const RUNS = [
  '0190f3a2-7c4e-4b8a-9d2e-5f6a7b8c9d01',
  '0190f3a2-7c4e-4b8a-9d2e-5f6a7b8c9d02',
  'not-a-uuid',
];
const TOOLS = ['get_weather', 'bash'];
const CALLS = ['c1', 'c2', 'c3'];

const base = fc.record({
  runId: fc.constantFrom(...RUNS),
  time: fc.tuple(
    fc.integer({ min: 1_748_779_200, max: 1_748_779_210 }),
    fc.integer({ min: 0, max: 999_999_999 }),
  ),
});
const event: fc.Arbitrary<AgentEvent> = fc.oneof(
  base.map((b) => ({ ...b, type: 'RunStarted' as const, provider: 'openai', model: 'm' })),
  fc
    .tuple(base, fc.nat(20))
    .map(([b, n]) => ({ ...b, type: 'ContextBuilt' as const, messageCount: n })),
  fc
    .tuple(base, fc.integer({ min: 0, max: 4 }))
    .map(([b, i]) => ({ ...b, type: 'ModelStarted' as const, iteration: i, model: 'm' })),
  fc
    .tuple(base, fc.string({ maxLength: 8 }))
    .map(([b, d]) => ({ ...b, type: 'TextDelta' as const, delta: d })),
  fc.tuple(base, fc.constantFrom(...CALLS), fc.constantFrom(...TOOLS)).map(([b, c, t]) => ({
    ...b,
    type: 'ToolCallCompleted' as const,
    callId: c,
    toolName: t,
    arguments: { x: 1 },
  })),
  fc
    .tuple(base, fc.constantFrom(...CALLS), fc.constantFrom(...TOOLS))
    .map(([b, c, t]) => ({ ...b, type: 'ToolExecutionStarted' as const, callId: c, toolName: t })),
  fc
    .tuple(
      base,
      fc.constantFrom(...CALLS),
      fc.constantFrom(...TOOLS),
      fc.boolean(),
      fc.option(fc.nat(5000), { nil: undefined }),
    )
    .map(([b, c, t, ok, d]) => ({
      ...b,
      type: 'ToolExecutionFinished' as const,
      callId: c,
      toolName: t,
      result: ok
        ? { ok: true as const, output: 1 }
        : { ok: false as const, error: 'boom password=x' },
      durationMs: d,
    })),
  fc
    .tuple(base, fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }))
    .map(([b, i]) => ({ ...b, type: 'AssistantMessageCommitted' as const, iteration: i })),
  fc
    .tuple(
      base,
      fc.nat(1000),
      fc.nat(1000),
      fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }),
    )
    .map(([b, i, o, it]) => ({
      ...b,
      type: 'UsageRecorded' as const,
      usage: { inputTokens: i, outputTokens: o },
      iteration: it,
    })),
  base.map((b) => ({ ...b, type: 'DoomLoopDetected' as const, description: 'loop' })),
  base.map((b) => ({ ...b, type: 'CompactionCircuitOpened' as const, consecutiveFailures: 3 })),
  fc
    .tuple(
      base,
      fc.constantFrom<'run' | 'iteration' | 'model_call' | 'tool'>(
        'run',
        'iteration',
        'model_call',
        'tool',
      ),
    )
    .map(([b, target]) => ({
      ...b,
      type: 'Annotation' as const,
      target,
      callId: 'c1',
      event: 'x.note',
      attributes: { 'x.n': 1 },
    })),
  base.map((b) => ({ ...b, type: 'RunCompleted' as const, finishReason: 'stop' })),
  base.map((b) => ({ ...b, type: 'RunFailed' as const, error: 'provider error' })),
  base.map((b) => ({ ...b, type: 'RunCancelled' as const })),
);

/** The events above, with runs started as sub-agents of the others (one trace for several runs). */
const withSubagents: fc.Arbitrary<AgentEvent> = fc.oneof(
  event,
  fc
    .tuple(base, fc.constantFrom(...RUNS), fc.option(fc.constantFrom(...CALLS), { nil: undefined }))
    .map(([b, parent, call]) => ({
      ...b,
      type: 'RunStarted' as const,
      provider: 'openai',
      model: 'm',
      parentRunId: parent,
      parentToolCallId: call,
    })),
);

async function run(
  events: readonly AgentEvent[],
  maxOpenRuns = 2,
  onRunEnd?: (run: RunSummary) => void,
) {
  const exporter = new InMemorySpanExporter();
  const census = new Census();
  const tracerProvider = new TracerProvider({
    idGenerator: new AgentRunIdGenerator(),
    spanProcessors: [census, new SimpleSpanProcessor({ exporter })],
  });
  const reader = new ManualReader();
  const sink = createAgentOtelSink({
    tracerProvider,
    meterProvider: new MeterProvider({ readers: [reader] }),
    env: {},
    maxOpenRuns,
    ...(onRunEnd === undefined ? {} : { onRunEnd }),
  });
  for (const e of events) sink.handle(e);
  await sink.shutdown();
  const { resourceMetrics } = await reader.collect();
  const counted = resourceMetrics.scopeMetrics
    .flatMap((s) => s.metrics)
    .filter((m) => m.descriptor.name === 'agent_bridge.events')
    .flatMap((m) => m.dataPoints as DataPoint<number>[])
    .reduce((total, p) => total + p.value, 0);
  return { spans: exporter.getFinishedSpans(), census, counted };
}

const ns = (t: [number, number]) => BigInt(t[0]) * 1_000_000_000n + BigInt(t[1]);

describe('run tracker properties', () => {
  it('never throws, closes every span, keeps parents in the trace and counts every input', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(event, { maxLength: 60 }), async (events) => {
        const { spans, census, counted } = await run(events);
        expect(census.ended).toBe(census.started);
        expect(counted).toBe(events.length);
        const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
        expect(byId.size).toBe(spans.length); // no two spans share an id
        for (const span of spans) {
          expect(ns(span.endTime)).toBeGreaterThanOrEqual(ns(span.startTime));
          const parentId = span.parentSpanContext?.spanId;
          if (parentId !== undefined) {
            const parent = byId.get(parentId);
            expect(parent).toBeDefined();
            expect(parent?.spanContext().traceId).toBe(span.spanContext().traceId);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('tells onRunEnd the ids of exactly the spans each run made, sub-agents apart from their parents', async () => {
    let shared = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(withSubagents, { maxLength: 60 }), async (events) => {
        const ended: RunSummary[] = [];
        const { spans } = await run(events, 2, (r) => ended.push(r));
        const named = ended.flatMap((r) => r.spanIds.map((id) => `${r.traceId}/${id}`));
        // Every span exported is one run's, and no two runs name the same span.
        expect(new Set(named).size).toBe(named.length);
        expect(named.sort()).toEqual(
          spans.map((s) => `${s.spanContext().traceId}/${s.spanContext().spanId}`).sort(),
        );
        if (new Set(ended.map((r) => r.traceId)).size < ended.length) shared += 1;
      }),
      { numRuns: 300 },
    );
    // Runs did share traces.
    expect(shared).toBeGreaterThan(30);
  });

  it('gives the same ids when the same input is replayed', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(event, { maxLength: 40 }), async (events) => {
        const ids = (spans: ReadableSpan[]) =>
          spans.map((s) => `${s.name}/${s.spanContext().traceId}/${s.spanContext().spanId}`).sort();
        expect(ids((await run(events)).spans)).toEqual(ids((await run(events)).spans));
      }),
      { numRuns: 100 },
    );
  });
});

describe('dialect robustness', () => {
  it('never throws on arbitrary JSON or text in any dialect, and counts every line once', async () => {
    const lines = fc.array(
      fc.oneof(
        fc.json(),
        fc.string(),
        fc.constantFrom(
          '{"__proto__":{"run_id":"x"}}',
          '{"constructor":{"prototype":{}}}',
          '{"type":"__proto__"}',
          '"TextStart"',
          '{"Done":{"stop_reason":{"Error":1}}}',
          `${'['.repeat(5000)}${']'.repeat(5000)}`,
          '{"RunStarted":{"run_id":"r","timestamp":"2025-06-01T12:00:00Z","x":12345678901234567890}}',
        ),
      ),
      { maxLength: 30 },
    );
    await fc.assert(
      fc.asyncProperty(
        lines,
        fc.constantFrom('auto', 'behest', 'oxi', 'agent-sdk', 'crabtalk'),
        async (input, dialect) => {
          const reader = new ManualReader();
          const sink = createAgentOtelSink({
            meterProvider: new MeterProvider({ readers: [reader] }),
            env: {},
          });
          const stream = sink.openStream('fuzz', dialect);
          for (const line of input) expect(() => stream.handleJson(line)).not.toThrow();
          await sink.shutdown();
          const stats = sink.stats();
          expect(Object.values(stats.events).reduce((a, b) => a + b, 0)).toBe(input.length);
          expect(({} as Record<string, unknown>)['run_id']).toBeUndefined(); // no prototype pollution
        },
      ),
      { numRuns: 200 },
    );
  });
});
