import { SpanStatusCode } from '@opentelemetry/api';
import type { Tracer, TracerProvider as ApiTracerProvider } from '@opentelemetry/api';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import type { Sampler } from '@opentelemetry/sdk-trace';
import { AgentRunIdGenerator, createAgentOtelSink } from '../../src/index.js';
import { behest, RUN_A, RUN_B, SESSION, toolRun } from '../helpers/behest-lines.js';
import { createHarness, spanByName } from '../helpers/harness.js';

const T0 = 1748779200;

describe('run lifecycle', () => {
  it('lets onRunEnd forget the run at once, so that its redelivered events rebuild it', () => {
    let forget: (runId: string) => void = () => undefined;
    const h = createHarness({ onRunEnd: (run) => forget(run.runId) });
    forget = (runId) => h.sink.forgetRun(runId);
    const first = h.feed(toolRun().join('\n'));
    const again = h.feed(toolRun().join('\n'));
    expect(first.every((r) => r.outcome === 'accepted')).toBe(true);
    expect(again.map((r) => r.outcome)).toEqual(first.map((r) => r.outcome));
    const runs = h
      .spans()
      .filter((s) => s.attributes['agent.run.id'] === RUN_A && s.parentSpanContext === undefined);
    expect(runs).toHaveLength(2);
    expect(runs[0]!.spanContext().spanId).toBe(runs[1]!.spanContext().spanId);
  });

  it.each([
    ['applied at once', {}],
    ['held for reordering', { reorderWindowMillis: 60_000, lateGraceMillis: 60_000 }],
  ] as const)(
    'gives an open run away (%s) and rebuilds it whole from its redelivered events',
    async (_how, windows) => {
      const whole = createHarness(windows);
      whole.feed(toolRun().join('\n'));
      await whole.sink.shutdown();
      const h = createHarness(windows);
      const lines = toolRun();
      // Its partition moves away mid-run, then comes back: every event is delivered again.
      h.feed(lines.slice(0, 5).join('\n'));
      h.sink.dropRun(RUN_A);
      expect(h.sink.stats().runs.open).toBe(0);
      const again = h.feed(lines.join('\n'));
      expect(again.map((r) => r.outcome)).toEqual(lines.map(() => 'accepted'));
      await h.sink.shutdown();
      const roots = (x: typeof h) => x.spans().filter((s) => s.parentSpanContext === undefined);
      expect(roots(h)).toHaveLength(1);
      const shape = (x: typeof h) =>
        x
          .spans()
          .map((s) =>
            JSON.stringify([s.name, s.spanContext().spanId, s.startTime, s.endTime, s.attributes]),
          )
          .sort();
      // Spans that ended before the run was given away come again, identical.
      expect(new Set(shape(h))).toEqual(new Set(shape(whole)));
      expect(await h.sum('agent.runs')).toBe(1);
    },
  );

  it.each([
    ['applied at once', {}],
    ['held for reordering', { reorderWindowMillis: 60_000, lateGraceMillis: 60_000 }],
  ] as const)(
    'records every per-run metric once when a run given away (%s) at any event is rebuilt here',
    async (_how, windows) => {
      /** Every metric point, by name and attributes: counts and sums of histograms, counter values. */
      const allPoints = async (x: ReturnType<typeof createHarness>) =>
        (await x.metrics())
          .flatMap((m) =>
            (
              m.dataPoints as {
                attributes: object;
                value: number | { count: number; sum?: number };
              }[]
            ).map(
              (p) =>
                `${m.descriptor.name} ${JSON.stringify(p.attributes)} ${JSON.stringify(
                  typeof p.value === 'number' ? p.value : [p.value.count, p.value.sum],
                )}`,
            ),
          )
          .filter((p) => !p.startsWith('agent_bridge.events'))
          .sort();
      const lines = [...toolRun(), ...toolRun(RUN_B)];
      const whole = createHarness(windows);
      whole.feed(lines.join('\n'));
      await whole.sink.shutdown();
      const expected = await allPoints(whole);
      expect(expected.some((p) => p.startsWith('agent.tool.calls'))).toBe(true);
      expect(expected.some((p) => p.startsWith('gen_ai.client.token.usage'))).toBe(true);
      const runA = toolRun();
      for (let cut = 1; cut < runA.length; cut += 1) {
        const h = createHarness(windows);
        h.feed(runA.slice(0, cut).join('\n'));
        h.sink.dropRun(RUN_A);
        // Its partition comes back: every event of the run is delivered again, then another run.
        h.feed([...runA, ...toolRun(RUN_B)].join('\n'));
        await h.sink.shutdown();
        expect(await allPoints(h), `given away after ${cut} events`).toEqual(expected);
      }
    },
  );

  afterEach(() => {
    vi.useRealTimers();
  });

  it('opens a run lazily on an event other than its start', async () => {
    const h = createHarness();
    h.feed(toolRun().slice(2).join('\n'));
    const run = spanByName(h.spans(), 'invoke_agent');
    expect(run.attributes['agent.run.synthesized']).toBe(true);
    expect(run.startTime).toEqual([T0, 200_000_000]);
    expect(run.attributes['gen_ai.request.model']).toBe('gpt-4o-mini');
    expect(run.attributes['agent.run.outcome']).toBe('completed');
    expect(await h.sum('agent.runs', { 'agent.run.outcome': 'completed' })).toBe(1);
  });

  it('tells onRunEnd how many spans the run made and how many iterations it had', () => {
    const ended: { runId: string; spanCount: number; iterations: number; outcome: string }[] = [];
    const h = createHarness({ onRunEnd: (run) => ended.push(run) });
    h.feed([...toolRun(), ...toolRun(RUN_B).slice(0, 3), toolRun(RUN_B).at(-1)!].join('\n'));
    const spansOf = (runId: string) =>
      h.spans().filter((s) => s.spanContext().traceId === runId.replaceAll('-', '')).length;
    expect(
      ended.map(({ runId, spanCount, iterations, outcome }) => ({
        runId,
        spanCount,
        iterations,
        outcome,
      })),
    ).toEqual([
      { runId: RUN_A, spanCount: spansOf(RUN_A), iterations: 2, outcome: 'completed' },
      // Cut after one iteration, but its RunCompleted says 2: the runtime's own count wins.
      { runId: RUN_B, spanCount: spansOf(RUN_B), iterations: 2, outcome: 'completed' },
    ]);
    expect(spansOf(RUN_A)).toBe(6);
  });

  it('tells onRunEnd that a run a sampler dropped made no spans, and one it kept all of them', () => {
    const counts = (sampler: Sampler) => {
      const ended: number[] = [];
      const exporter = new InMemorySpanExporter();
      const sink = createAgentOtelSink({
        tracerProvider: new TracerProvider({
          sampler,
          idGenerator: new AgentRunIdGenerator(),
          spanProcessors: [new SimpleSpanProcessor({ exporter })],
        }),
        meterProvider: new MeterProvider(),
        env: {},
        reorderWindowMillis: 0,
        lateGraceMillis: 0,
        onRunEnd: (run) => ended.push(run.spanCount),
      });
      for (const line of toolRun()) sink.handleJson(line);
      return { ended, exported: exporter.getFinishedSpans().length };
    };
    expect(counts(new AlwaysOffSampler())).toEqual({ ended: [0], exported: 0 });
    expect(counts(new AlwaysOnSampler())).toEqual({ ended: [6], exported: 6 });
  });

  it('takes the session of a start that comes after the run opened without it', () => {
    const h = createHarness();
    const lines = toolRun();
    const start = (second: string) => lines[0]!.replace(':00.000Z', `:${second}Z`);
    // Opened by its ModelStarted; its RunStarted, dated after it, comes next.
    const results = h.feed([lines[2]!, start('00.300'), ...lines.slice(3)].join('\n'));
    expect(results.map((r) => r.outcome).every((o) => o === 'accepted')).toBe(true);
    const run = spanByName(h.spans(), 'invoke_agent');
    expect(run.attributes['agent.run.synthesized']).toBe(true);
    expect(run.attributes['session.id']).toBe(SESSION);
    expect(run.attributes['gen_ai.conversation.id']).toBe(SESSION);
  });

  it('counts a second, different start of a started run as a duplicate start', () => {
    const h = createHarness();
    const lines = toolRun();
    const again = lines[0]!.replace(':00.000Z', ':00.150Z');
    const results = h.feed([...lines.slice(0, 2), again, ...lines.slice(2)].join('\n'));
    expect([results[2]!.outcome, results[2]!.reason]).toEqual(['duplicate', 'run_already_started']);
    expect(results[2]!.message).toContain('RunStarted for a run that already started');
  });

  it('counts events after the terminal event as late and exact duplicates as duplicate', async () => {
    const h = createHarness();
    const lines = toolRun();
    const results = h.feed(
      [
        ...lines.slice(0, 5),
        lines[4]!,
        ...lines.slice(5),
        lines.at(-1)!,
        behest('TextDelta', RUN_A, '09', { delta: 'x' }),
      ].join('\n'),
    );
    expect(results.map((r) => r.outcome)).toEqual([
      ...Array<string>(5).fill('accepted'),
      'duplicate',
      ...Array<string>(11).fill('accepted'),
      'duplicate',
      'late',
    ]);
    expect(results.at(-1)).toMatchObject({ reason: 'run_finished', runId: RUN_A });
    expect(h.spans()).toHaveLength(6);
    expect(await h.sum('agent_bridge.events', { 'agent_bridge.event.outcome': 'duplicate' })).toBe(
      2,
    );
    expect(
      await h.sum('agent_bridge.events', {
        'agent_bridge.event.outcome': 'late',
        'agent_bridge.reason': 'run_finished',
      }),
    ).toBe(1);
    expect(
      await h.sum('agent_bridge.events', {
        'agent_bridge.event.outcome': 'accepted',
        'agent_bridge.dialect': 'behest',
      }),
    ).toBe(16);
  });

  it('rejects a repeated iteration and a repeated tool execution instead of reusing their span ids', () => {
    const h = createHarness();
    const results = h.feed(
      [
        behest('ModelStarted', RUN_A, '00', { iteration: 2 }),
        behest('ModelStarted', RUN_A, '01', { iteration: 1 }),
        behest('ToolExecutionFinished', RUN_A, '02', {
          call_id: 'c',
          tool_name: 't',
          result: { Success: { output: 1 } },
        }),
        behest('ToolExecutionFinished', RUN_A, '03', {
          call_id: 'c',
          tool_name: 't',
          result: { Success: { output: 1 } },
        }),
        behest('ToolExecutionStarted', RUN_A, '04', { call_id: 'c', tool_name: 't' }),
      ].join('\n'),
    );
    expect(results.map((r) => `${r.outcome}:${r.reason ?? ''}`)).toEqual([
      'accepted:',
      'rejected:iteration_out_of_order',
      'accepted:',
      'duplicate:tool_already_finished',
      'duplicate:tool_already_started',
    ]);
  });

  it('ends every open run as abandoned at end of input, at its last seen event time', async () => {
    const h = createHarness();
    h.feed(toolRun().slice(0, 9).join('\n')); // stops inside the tool execution
    // The first model call settled (committed, usage in) and left at once; nothing else has ended.
    expect(h.spans().map((s) => s.name)).toEqual(['chat gpt-4o-mini']);
    expect(h.sink.endOpenRuns('end_of_input')).toBe(1);
    const run = spanByName(h.spans(), 'invoke_agent');
    expect(run.status.code).toBe(SpanStatusCode.ERROR);
    expect(run.attributes).toMatchObject({
      'agent.run.outcome': 'abandoned',
      'error.type': 'abandoned',
    });
    expect(run.endTime).toEqual([T0 + 1, 100_000_000]);
    const tool = spanByName(h.spans(), 'execute_tool get_weather');
    expect(tool.attributes).toMatchObject({
      'agent.tool.outcome': 'incomplete',
      'agent.span.incomplete': true,
    });
    expect(
      await h.sum('agent_bridge.runs.evicted', { 'agent_bridge.reason': 'end_of_input' }),
    ).toBe(1);
    expect(await h.sum('agent.runs', { 'agent.run.outcome': 'abandoned' })).toBe(1);
  });

  it('abandons the least recently active run beyond maxOpenRuns', async () => {
    const h = createHarness({ maxOpenRuns: 2 });
    const RUN_C = '0190f3a2-7c4e-4b8a-9d2e-5f6a7b8c9d10';
    h.feed(
      [
        behest('RunStarted', RUN_A, '00', {}),
        behest('RunStarted', RUN_B, '01', {}),
        behest('TextDelta', RUN_A, '02', { delta: 'a is active again' }),
        behest('RunStarted', RUN_C, '03', {}),
      ].join('\n'),
    );
    const ended = h.spans();
    expect(ended).toHaveLength(1);
    expect(ended[0]!.attributes).toMatchObject({
      'agent.run.id': RUN_B,
      'agent.run.outcome': 'abandoned',
    });
    expect(await h.sum('agent_bridge.runs.evicted', { 'agent_bridge.reason': 'capacity' })).toBe(1);
    expect(await h.sum('agent_bridge.limits.hit', { 'agent_bridge.limit': 'open_runs' })).toBe(1);
    expect(h.sink.stats().runs.open).toBe(2);
  });

  it('abandons runs idle for longer than the idle timeout', async () => {
    vi.useFakeTimers();
    let now = 1_000_000;
    const h = createHarness({ idleTimeoutMillis: 10_000, now: () => now });
    h.feed(
      [behest('RunStarted', RUN_A, '00', {}), behest('RunStarted', RUN_B, '01', {})].join('\n'),
    );
    now += 6_000;
    h.feed(behest('TextDelta', RUN_B, '02', { delta: 'still here' }));
    now += 6_000;
    vi.advanceTimersByTime(3_000); // a sweep runs (every idle/4, at least 1 s)
    expect(h.spans().map((s) => s.attributes['agent.run.id'])).toEqual([RUN_A]);
    now += 6_000;
    vi.advanceTimersByTime(3_000);
    expect(h.spans().map((s) => s.attributes['agent.run.id'])).toEqual([RUN_A, RUN_B]);
    expect(
      await h.sum('agent_bridge.runs.evicted', { 'agent_bridge.reason': 'idle_timeout' }),
    ).toBe(2);
  });

  it('ends open runs at shutdown and rejects input after it', async () => {
    const h = createHarness();
    h.feed(behest('RunStarted', RUN_A, '00', {}));
    await h.sink.shutdown();
    expect(spanByName(h.spans(), 'invoke_agent').attributes['agent.run.outcome']).toBe('abandoned');
    expect(await h.sum('agent_bridge.runs.evicted', { 'agent_bridge.reason': 'shutdown' })).toBe(1);
    expect(h.sink.handleJson(behest('RunStarted', RUN_B, '00', {}))).toMatchObject({
      outcome: 'rejected',
      reason: 'sink_closed',
    });
    await h.sink.shutdown();
  });

  it('keeps the active-runs gauge balanced', async () => {
    const h = createHarness();
    h.feed([...toolRun(RUN_A), behest('RunStarted', RUN_B, '00', {})].join('\n'));
    expect(await h.sum('agent.runs.active')).toBe(1);
    h.sink.endOpenRuns();
    expect(await h.sum('agent.runs.active')).toBe(0);
  });

  it('never throws into the host, even when the tracer does', async () => {
    const broken: Tracer = {
      startSpan: () => {
        throw new Error('tracer exploded');
      },
      startActiveSpan: () => {
        throw new Error('tracer exploded');
      },
    };
    const tracerProvider: ApiTracerProvider = { getTracer: () => broken };
    const direct = createAgentOtelSink({ tracerProvider, env: {}, reorderWindowMillis: 0 });
    const result = direct.handleJson(behest('RunStarted', RUN_A, '00', {}));
    expect(result).toMatchObject({ outcome: 'rejected', reason: 'internal_error' });
    expect(direct.stats().events.rejected).toBe(1);
    await expect(direct.shutdown()).resolves.toBeUndefined();
    // Held for reordering, the event is mapped later: the failure is counted then.
    const held = createAgentOtelSink({ tracerProvider, env: {} });
    expect(held.handleJson(behest('RunStarted', RUN_A, '00', {})).outcome).toBe('accepted');
    await expect(held.shutdown()).resolves.toBeUndefined();
    expect(held.stats().events).toMatchObject({ accepted: 0, rejected: 1 });
  });

  it('gives the same ids when the same input is replayed', () => {
    const ids = () => {
      const h = createHarness();
      h.feed(toolRun().join('\n'));
      return h
        .spans()
        .map(
          (s) =>
            `${s.name}:${s.spanContext().traceId}:${s.spanContext().spanId}:${s.parentSpanContext?.spanId ?? ''}`,
        );
    };
    expect(ids()).toEqual(ids());
  });
});
