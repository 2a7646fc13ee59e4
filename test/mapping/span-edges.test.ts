// The mapping's less travelled paths, each tied to what docs/telemetry-contract.md says of it:
// runs timed by arrival, runs opened by a model call, the latest conventions' attributes on run
// and tool spans, sub-agents under a parent context, which model call a usage lands on.
import { ROOT_CONTEXT, SpanStatusCode, trace } from '@opentelemetry/api';
import type { HrTime } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { toSpanId, toTraceId } from '../../src/index.js';
import type { AgentEvent } from '../../src/index.js';
import { behest, RUN_A, RUN_B } from '../helpers/behest-lines.js';
import { createHarness, spanByName } from '../helpers/harness.js';
import type { Harness } from '../helpers/harness.js';

const T0 = 1748779200;
const at = (millis: number): HrTime => [T0 + Math.floor(millis / 1000), (millis % 1000) * 1e6];

type Without<E> = E extends AgentEvent ? Omit<E, 'runId' | 'time'> : never;
/** Typed events of RUN_A at the given milliseconds after T0. */
function events(timeFromArrival: boolean, ...steps: [number, Without<AgentEvent>][]): AgentEvent[] {
  return steps.map(([millis, event]) => ({
    ...event,
    runId: RUN_A,
    time: at(millis),
    ...(timeFromArrival ? { timeFromArrival: true } : {}),
  }));
}

/** A run with a streamed model call (three chunks) and a tool, as typed events. */
function streamedRun(timeFromArrival: boolean): AgentEvent[] {
  return events(
    timeFromArrival,
    [0, { type: 'RunStarted', provider: 'openai', model: 'm', agentName: 'bot' }],
    [100, { type: 'ModelStarted', iteration: 1 }],
    [300, { type: 'TextDelta', delta: 'a' }],
    [400, { type: 'TextDelta', delta: 'b' }],
    [600, { type: 'TextDelta', delta: 'c' }],
    [700, { type: 'UsageRecorded', usage: { inputTokens: 10, outputTokens: 3 } }],
    [800, { type: 'AssistantMessageCommitted' }],
    [900, { type: 'ToolExecutionStarted', callId: 'c1', toolName: 't' }],
    [
      1400,
      {
        type: 'ToolExecutionFinished',
        callId: 'c1',
        toolName: 't',
        result: { ok: true, output: 1 },
      },
    ],
    [2000, { type: 'RunCompleted', iterations: 1 }],
  );
}

const DURATIONS = [
  'gen_ai.invoke_agent.duration',
  'gen_ai.execute_tool.duration',
  'gen_ai.client.operation.duration',
  'gen_ai.client.operation.time_to_first_chunk',
  'gen_ai.client.inference.duration',
  'gen_ai.client.inference.time_to_first_chunk',
  'gen_ai.client.inference.time_per_output_chunk',
] as const;

async function durationCounts(h: Harness): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const name of DURATIONS) counts[name] = await h.sum(name);
  return counts;
}

describe('runs timed by arrival', () => {
  it('keep the times on their spans but record no duration, and count everything else', async () => {
    const timed = createHarness({ genAiConventions: 'latest' });
    for (const e of streamedRun(false)) expect(timed.sink.handle(e).outcome).toBe('accepted');
    const arrival = createHarness({ genAiConventions: 'latest' });
    for (const e of streamedRun(true)) expect(arrival.sink.handle(e).outcome).toBe('accepted');

    // The same run timed by the runtime records each duration: one point per call, tool and run,
    // two chunk intervals (0.1 s and 0.2 s).
    expect(await durationCounts(timed)).toEqual({
      'gen_ai.invoke_agent.duration': 1,
      'gen_ai.execute_tool.duration': 1,
      'gen_ai.client.operation.duration': 1,
      'gen_ai.client.operation.time_to_first_chunk': 1,
      'gen_ai.client.inference.duration': 1,
      'gen_ai.client.inference.time_to_first_chunk': 1,
      'gen_ai.client.inference.time_per_output_chunk': 2,
    });
    const [chunks] = await timed.points('gen_ai.client.inference.time_per_output_chunk');
    expect(chunks?.value).toMatchObject({ count: 2, min: 0.1, max: 0.2 });

    expect(Object.values(await durationCounts(arrival))).toEqual(DURATIONS.map(() => 0));
    // Counts are not durations: they stay.
    for (const name of ['agent.runs', 'agent.tool.calls', 'gen_ai.client.token.usage'])
      expect(await arrival.sum(name)).toBe(await timed.sum(name));
    expect(await arrival.sum('agent.tool.calls')).toBe(1);
    // The spans keep the times they were given.
    const tool = spanByName(arrival.spans(), 'execute_tool t');
    expect([tool.startTime, tool.endTime]).toEqual([at(900), at(1400)]);
    expect(spanByName(arrival.spans(), 'invoke_agent bot').endTime).toEqual(at(2000));
  });

  it('record a tool seen only finished at its finish time less its duration, and no duration', async () => {
    const h = createHarness();
    const run = events(
      true,
      [0, { type: 'RunStarted' }],
      [
        1000,
        {
          type: 'ToolExecutionFinished',
          callId: 'c1',
          toolName: 't',
          durationMs: 250,
          result: { ok: true, output: 1 },
        },
      ],
      [2000, { type: 'RunCompleted' }],
    );
    for (const e of run) h.sink.handle(e);
    const tool = spanByName(h.spans(), 'execute_tool t');
    expect([tool.startTime, tool.endTime]).toEqual([at(750), at(1000)]);
    expect(await h.sum('gen_ai.execute_tool.duration')).toBe(0);
    expect(await h.sum('agent.tool.calls', { 'agent.tool.outcome': 'success' })).toBe(1);
  });

  it('record no run duration when only the run’s start was timed by arrival', async () => {
    const h = createHarness();
    const [started] = events(true, [0, { type: 'RunStarted' }]);
    const [completed] = events(false, [2000, { type: 'RunCompleted' }]);
    h.sink.handle(started!);
    h.sink.handle(completed!);
    expect(h.spans()).toHaveLength(1);
    expect(await h.sum('gen_ai.invoke_agent.duration')).toBe(0);
    expect(await h.sum('agent.runs')).toBe(1);
  });
});

describe('a run opened by its first model call', () => {
  it('takes its provider and model from that call, and is marked synthesized', () => {
    const h = createHarness();
    h.feed(
      [
        behest('ModelStarted', RUN_A, '00', { iteration: 1, provider: 'anthropic', model: 'c' }),
        behest('RunCompleted', RUN_A, '01', {}),
      ].join('\n'),
    );
    expect(spanByName(h.spans(), 'invoke_agent').attributes).toMatchObject({
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'c',
      'agent.run.synthesized': true,
    });
  });

  it('learns them from a later call when opened by another event, and keeps the first it learned', async () => {
    const h = createHarness();
    h.feed(
      [
        behest('ToolExecutionStarted', RUN_A, '00', { call_id: 'c0', tool_name: 't' }),
        behest('ModelStarted', RUN_A, '01', { iteration: 1, provider: 'anthropic', model: 'c' }),
        behest('ModelStarted', RUN_A, '02', { iteration: 2, provider: 'openai', model: 'g' }),
        behest('RunCompleted', RUN_A, '03', {}),
      ].join('\n'),
    );
    expect(spanByName(h.spans(), 'invoke_agent').attributes).toMatchObject({
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'c',
    });
    // The run's metrics carry what the run learned.
    expect(await h.sum('agent.runs', { 'gen_ai.provider.name': 'anthropic' })).toBe(1);
  });

  it('keeps a model the run started with over a later call', () => {
    const h = createHarness();
    h.feed(
      [
        behest('RunStarted', RUN_A, '00', { provider: 'openai', model: 'first' }),
        behest('ModelStarted', RUN_A, '01', { iteration: 1, provider: 'anthropic', model: 'x' }),
        behest('RunCompleted', RUN_A, '02', {}),
      ].join('\n'),
    );
    expect(spanByName(h.spans(), 'invoke_agent').attributes).toMatchObject({
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'first',
    });
  });
});

describe('the latest conventions on run and tool spans', () => {
  it('keep the provider off the run span however the run learned it, and name the agent on tools', async () => {
    const h = createHarness({ genAiConventions: 'latest', agentName: 'bot' });
    h.feed(
      [
        // RUN_A learns its provider from its first call, RUN_B is opened by it.
        behest('RunStarted', RUN_A, '00', {}),
        behest('ModelStarted', RUN_A, '01', { iteration: 1, provider: 'anthropic', model: 'c' }),
        behest('ModelStarted', RUN_B, '01', { iteration: 1, provider: 'anthropic', model: 'c' }),
        behest('ToolExecutionStarted', RUN_A, '02', { call_id: 'c1', tool_name: 't' }),
        behest('ToolExecutionFinished', RUN_A, '03', {
          call_id: 'c1',
          tool_name: 't',
          result: { Success: { output: 1 } },
        }),
        behest('RunCompleted', RUN_A, '04', {}),
        behest('RunCompleted', RUN_B, '04', {}),
      ].join('\n'),
    );
    const runs = h.spans().filter((s) => s.name === 'invoke_agent bot');
    expect(runs).toHaveLength(2);
    for (const run of runs) {
      expect(run.attributes['gen_ai.provider.name']).toBeUndefined();
      expect(run.attributes['gen_ai.request.model']).toBe('c');
    }
    expect(spanByName(h.spans(), 'execute_tool t').attributes['gen_ai.agent.name']).toBe('bot');
    const [duration] = await h.points('gen_ai.execute_tool.duration');
    expect(duration?.attributes).toEqual({
      'gen_ai.tool.name': 't',
      'gen_ai.tool.type': 'function',
      'gen_ai.agent.name': 'bot',
      'agent.tool.outcome': 'success',
    });
  });

  it('leave tool spans and their duration without an agent name under the default conventions', async () => {
    const h = createHarness({ agentName: 'bot' });
    h.feed(
      [
        behest('RunStarted', RUN_A, '00', {}),
        behest('ToolExecutionStarted', RUN_A, '02', { call_id: 'c1', tool_name: 't' }),
        behest('ToolExecutionFinished', RUN_A, '03', {
          call_id: 'c1',
          tool_name: 't',
          result: { Success: { output: 1 } },
        }),
        behest('RunCompleted', RUN_A, '04', {}),
      ].join('\n'),
    );
    expect(spanByName(h.spans(), 'execute_tool t').attributes['gen_ai.agent.name']).toBeUndefined();
    const [duration] = await h.points('gen_ai.execute_tool.duration');
    expect(duration?.attributes).toEqual({
      'gen_ai.tool.name': 't',
      'agent.tool.outcome': 'success',
    });
  });
});

describe('a failed run without its error text', () => {
  it('has an error status with no description and no exception event', () => {
    const h = createHarness({ exportErrorText: false });
    h.feed(
      [
        behest('RunStarted', RUN_A, '00', {}),
        behest('RunFailed', RUN_A, '01', { error: 'rate limited (429) for key sk-abc' }),
      ].join('\n'),
    );
    const run = spanByName(h.spans(), 'invoke_agent');
    expect(run.status.code).toBe(SpanStatusCode.ERROR);
    expect('message' in run.status).toBe(false);
    expect(run.attributes['error.type']).toBe('provider');
    expect(run.events).toEqual([]);
  });
});

describe('sub-agents', () => {
  const parentSpanContext = { traceId: 'f'.repeat(32), spanId: 'e'.repeat(16), traceFlags: 1 };
  const child = (parent: Record<string, unknown>) =>
    [
      behest('RunStarted', RUN_B, '01', { parent_run_id: RUN_A, ...parent }),
      behest('RunCompleted', RUN_B, '02', {}),
    ].join('\n');

  it('join the parent context the sink was given, not the parent run named in the event', () => {
    const h = createHarness({
      parentContext: trace.setSpanContext(ROOT_CONTEXT, parentSpanContext),
    });
    h.feed(child({ parent_tool_call_id: 'c1' }));
    const run = spanByName(h.spans(), 'invoke_agent');
    expect(run.spanContext().traceId).toBe('f'.repeat(32));
    expect(run.parentSpanContext?.spanId).toBe('e'.repeat(16));
    expect(run.attributes['agent.run.parent_id']).toBeUndefined();
  });

  it('without a parent context, join the parent run’s trace under its tool span', () => {
    const alone = createHarness();
    alone.feed(behest('RunStarted', RUN_A, '00', {}));
    alone.feed(behest('RunCompleted', RUN_A, '03', {}));
    const parentRun = spanByName(alone.spans(), 'invoke_agent');
    const h = createHarness();
    h.feed(child({ parent_tool_call_id: 'c1' }));
    const run = spanByName(h.spans(), 'invoke_agent');
    expect(run.spanContext().traceId).toBe(parentRun.spanContext().traceId);
    expect(run.parentSpanContext?.spanId).not.toBe(parentRun.spanContext().spanId);
    expect(run.attributes['agent.run.parent_id']).toBe(RUN_A);
  });

  it('name their spans by the trace they joined, under either parent', () => {
    const parentContext = trace.setSpanContext(ROOT_CONTEXT, parentSpanContext);
    const lines = (parent: Record<string, unknown>) =>
      [
        behest('RunStarted', RUN_B, '01', { parent_run_id: RUN_A, ...parent }),
        behest('ModelStarted', RUN_B, '02', { iteration: 1, model: 'm' }),
        behest('RunCompleted', RUN_B, '03', {}),
      ].join('\n');
    const joined = createHarness({ parentContext });
    joined.feed(lines({}));
    expect(spanByName(joined.spans(), 'agent.iteration').spanContext().spanId).toBe(
      toSpanId('f'.repeat(32), 'iteration/1'),
    );
    const spawned = createHarness();
    spawned.feed(lines({ parent_tool_call_id: 'c1' }));
    const iteration = spanByName(spawned.spans(), 'agent.iteration');
    expect(iteration.spanContext().traceId).toBe(toTraceId('behest', RUN_A));
    expect(iteration.spanContext().spanId).toBe(
      toSpanId(toTraceId('behest', RUN_A), `subagent/${RUN_B}/iteration/1`),
    );
  });
});

describe('which model call an event lands on', () => {
  it('a new iteration ends the open call at its start, complete', () => {
    const h = createHarness();
    h.feed(
      [
        behest('RunStarted', RUN_A, '00', {}),
        behest('ModelStarted', RUN_A, '01', { iteration: 1, model: 'm' }),
        behest('ModelStarted', RUN_A, '03', { iteration: 2, model: 'm' }),
        behest('RunCompleted', RUN_A, '05', {}),
      ].join('\n'),
    );
    const chats = h.spans().filter((s) => s.name === 'chat m');
    expect(
      chats.map((c) => [c.startTime, c.endTime, c.attributes['agent.span.incomplete']]),
    ).toEqual([
      [at(1000), at(3000), undefined],
      [at(3000), at(5000), true],
    ]);
  });

  it('a commit of an earlier call leaves the open call open', async () => {
    // behest commits name no iteration; other runtimes' do (typed events here).
    const h = createHarness();
    const run = events(
      false,
      [0, { type: 'RunStarted' }],
      [1000, { type: 'ModelStarted', iteration: 1, model: 'm' }],
      [2000, { type: 'ModelStarted', iteration: 2, model: 'm' }],
      [3000, { type: 'AssistantMessageCommitted', iteration: 1 }],
      [4000, { type: 'TextDelta', delta: 'x' }],
      [5000, { type: 'RunCompleted' }],
    );
    for (const e of run) h.sink.handle(e);
    // The chunk after the commit is the open call's first.
    const [first] = await h.points('gen_ai.client.operation.time_to_first_chunk');
    expect(first?.value).toMatchObject({ count: 1, sum: 2 });
    const chats = h.spans().filter((s) => s.name === 'chat m');
    const second = chats.find((c) => c.attributes['agent.iteration.number'] === 2);
    // Still open when the run ended: cut there, incomplete.
    expect([second?.endTime, second?.attributes['agent.span.incomplete']]).toEqual([
      at(5000),
      true,
    ]);
  });

  it('usage without an iteration goes to the open call, else to the latest call of the open iteration', () => {
    const h = createHarness();
    h.feed(
      [
        behest('RunStarted', RUN_A, '00', {}),
        behest('ModelStarted', RUN_A, '01', { iteration: 1, model: 'm' }),
        behest('ModelStarted', RUN_A, '02', { iteration: 2, model: 'm' }),
        // The open call (iteration 2) takes it, not the earlier unsettled one.
        behest('UsageRecorded', RUN_A, '02.5', {
          usage: { input_tokens: 7, output_tokens: 1, total_tokens: 8 },
        }),
        behest('ToolExecutionStarted', RUN_A, '03', { call_id: 'c1', tool_name: 't' }),
        // The call of iteration 2 ended with the tool; it is still the latest of the iteration.
        behest('UsageRecorded', RUN_A, '04', {
          usage: { input_tokens: 5, output_tokens: 2, total_tokens: 7 },
        }),
        behest('RunCompleted', RUN_A, '05', {}),
      ].join('\n'),
    );
    const chats = h.spans().filter((s) => s.name === 'chat m');
    const byIteration = new Map(chats.map((c) => [c.attributes['agent.iteration.number'], c]));
    expect(byIteration.get(1)?.attributes['gen_ai.usage.input_tokens']).toBeUndefined();
    expect(byIteration.get(2)?.attributes['gen_ai.usage.input_tokens']).toBe(12);
    expect(byIteration.get(2)?.attributes['gen_ai.usage.output_tokens']).toBe(3);
  });

  it('usage without an iteration after the open iteration’s call was made goes to no earlier call', () => {
    const h = createHarness();
    h.feed(
      [
        behest('RunStarted', RUN_A, '00', {}),
        behest('ModelStarted', RUN_A, '01', { iteration: 1, model: 'm' }),
        behest('ModelStarted', RUN_A, '02', { iteration: 2, model: 'm' }),
        behest('UsageRecorded', RUN_A, '02.5', {
          usage: { input_tokens: 7, output_tokens: 1, total_tokens: 8 },
        }),
        behest('AssistantMessageCommitted', RUN_A, '03', {}),
      ].join('\n'),
    );
    // Iteration 2's call settled and was made; iteration 1's still waits for its usage.
    expect(
      h
        .spans()
        .filter((s) => s.name === 'chat m')
        .map((s) => s.attributes['agent.iteration.number']),
    ).toEqual([2]);
    h.feed(
      [
        behest('UsageRecorded', RUN_A, '04', {
          usage: { input_tokens: 5, output_tokens: 2, total_tokens: 7 },
        }),
        behest('RunCompleted', RUN_A, '05', {}),
      ].join('\n'),
    );
    const first = h
      .spans()
      .find((s) => s.name === 'chat m' && s.attributes['agent.iteration.number'] === 1);
    expect(first?.attributes['gen_ai.usage.input_tokens']).toBeUndefined();
    // The run still counts it.
    expect(spanByName(h.spans(), 'invoke_agent').attributes['gen_ai.usage.input_tokens']).toBe(12);
  });
});
