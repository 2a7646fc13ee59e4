// Sub-agents in their parent's trace: a run that names its parent run and spawning tool call has
// its root under that call's `execute_tool` span, by id — in one sink, or in two that never talk
// (two processes) — with no orphan and no second root; agent-sdk's sub-agents likewise.
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/events/agent-event.js';
import { createHarness } from '../helpers/harness.js';
import { createSampledSink } from '../helpers/sampled-sink.js';

const PARENT = '0190f3a2-7c4e-4b8a-9d2e-aaaaaaaaaaaa';
const CHILD = '0190f3a2-7c4e-4b8a-9d2e-bbbbbbbbbbbb';
const t = (ms: number): [number, number] => [
  1_750_000_000 + Math.floor(ms / 1000),
  (ms % 1000) * 1e6,
];

/** The parent's events: a model call that spawns `research` (call spawn_1), then ends. */
function parentEvents(outcome: 'RunCompleted' | 'RunFailed' = 'RunCompleted'): AgentEvent[] {
  return [
    { type: 'RunStarted', runId: PARENT, time: t(0), provider: 'openai', model: 'gpt-4o-mini' },
    { type: 'ModelStarted', runId: PARENT, time: t(10), iteration: 1 },
    {
      type: 'UsageRecorded',
      runId: PARENT,
      time: t(20),
      usage: { inputTokens: 100, outputTokens: 10 },
    },
    { type: 'AssistantMessageCommitted', runId: PARENT, time: t(30) },
    {
      type: 'ToolExecutionStarted',
      runId: PARENT,
      time: t(40),
      callId: 'spawn_1',
      toolName: 'research',
    },
    {
      type: 'ToolExecutionFinished',
      runId: PARENT,
      time: t(900),
      callId: 'spawn_1',
      toolName: 'research',
      result: { ok: true, output: 'done' },
    },
    outcome === 'RunCompleted'
      ? { type: 'RunCompleted', runId: PARENT, time: t(1000) }
      : { type: 'RunFailed', runId: PARENT, time: t(1000), error: 'x' },
  ];
}

/** The child's events: a run of its own agent, with a model call and a tool. */
function childEvents(
  parent: { parentRunId?: string; parentToolCallId?: string } = {
    parentRunId: PARENT,
    parentToolCallId: 'spawn_1',
  },
  outcome: 'RunCompleted' | 'RunFailed' = 'RunCompleted',
): AgentEvent[] {
  return [
    { type: 'RunStarted', runId: CHILD, time: t(50), agentName: 'researcher', ...parent },
    {
      type: 'ModelStarted',
      runId: CHILD,
      time: t(60),
      iteration: 1,
      provider: 'openai',
      model: 'gpt-4o-mini',
    },
    {
      type: 'UsageRecorded',
      runId: CHILD,
      time: t(70),
      usage: { inputTokens: 40, outputTokens: 4 },
    },
    { type: 'AssistantMessageCommitted', runId: CHILD, time: t(80) },
    { type: 'ToolExecutionStarted', runId: CHILD, time: t(90), callId: 'c1', toolName: 'grep' },
    {
      type: 'ToolExecutionFinished',
      runId: CHILD,
      time: t(200),
      callId: 'c1',
      toolName: 'grep',
      result: { ok: true, output: '' },
    },
    outcome === 'RunCompleted'
      ? { type: 'RunCompleted', runId: CHILD, time: t(800) }
      : { type: 'RunFailed', runId: CHILD, time: t(800), error: 'tool loop' },
  ];
}

/** One trace: a single root, every other span's parent in it, no span id twice. */
function expectOneTrace(spans: readonly ReadableSpan[]): void {
  const traces = new Set(spans.map((s) => s.spanContext().traceId));
  expect(traces.size).toBe(1);
  const ids = spans.map((s) => s.spanContext().spanId);
  expect(new Set(ids).size).toBe(ids.length);
  expect(spans.filter((s) => s.parentSpanContext === undefined).map((s) => s.name)).toEqual([
    'invoke_agent',
  ]);
  for (const s of spans)
    if (s.parentSpanContext !== undefined)
      expect(ids.includes(s.parentSpanContext.spanId), `${s.name}'s parent`).toBe(true);
}

const byName = (spans: readonly ReadableSpan[], name: string) =>
  spans.find((s) => s.name === name)!;

describe('sub-agents', () => {
  it("puts a child run under its parent's spawning tool span, in the parent's trace", async () => {
    const h = createHarness();
    const [start, ...rest] = parentEvents();
    h.sink.handle(start!);
    // Interleaved as they happen: the child runs while the spawning call is open.
    for (const e of rest.slice(0, 4)) h.sink.handle(e);
    for (const e of childEvents()) h.sink.handle(e);
    for (const e of rest.slice(4)) h.sink.handle(e);
    const spans = h.spans();
    expectOneTrace(spans);
    const child = byName(spans, 'invoke_agent researcher');
    expect(child.parentSpanContext?.spanId).toBe(
      byName(spans, 'execute_tool research').spanContext().spanId,
    );
    expect(child.attributes['agent.run.parent_id']).toBe(PARENT);
    expect(child.attributes['agent.run.id']).toBe(CHILD);
    expect(byName(spans, 'execute_tool grep').parentSpanContext?.spanId).not.toBe(
      byName(spans, 'execute_tool research').spanContext().spanId,
    );
    // Its metrics carry its own agent.
    const runs = await h.points('agent.runs');
    expect(runs.map((p) => p.attributes['gen_ai.agent.name'] ?? '(none)').sort()).toEqual([
      '(none)',
      'researcher',
    ]);
  });

  it('gives the same trace when the parent and the child are mapped in two processes', () => {
    const mapIn = (events: AgentEvent[]) => {
      const h = createHarness();
      for (const e of events) h.sink.handle(e);
      return h.spans();
    };
    const together = (() => {
      const h = createHarness();
      for (const e of [...parentEvents(), ...childEvents()]) h.sink.handle(e);
      return h.spans();
    })();
    const apart = [...mapIn(childEvents()), ...mapIn(parentEvents())];
    expectOneTrace(apart);
    const view = (spans: readonly ReadableSpan[]) =>
      spans
        .map((s) => `${s.spanContext().spanId} ${s.parentSpanContext?.spanId ?? '-'} ${s.name}`)
        .sort();
    expect(view(apart)).toEqual(view(together));
  });

  it("puts a child whose spawning call is unknown under its parent's run span", () => {
    const h = createHarness();
    for (const e of [...parentEvents(), ...childEvents({ parentRunId: PARENT })]) h.sink.handle(e);
    const spans = h.spans();
    expectOneTrace(spans);
    expect(byName(spans, 'invoke_agent researcher').parentSpanContext?.spanId).toBe(
      byName(spans, 'invoke_agent').spanContext().spanId,
    );
  });

  it("finds agent-sdk's spawning call by the sub-agent's name when its id is the loop's own", () => {
    const h = createHarness();
    const lines = [
      { type: 'start', thread_id: 't-42', turn: 1 },
      { type: 'tool_call_start', id: 'toolu_1', name: 'explore', input: { task: 'find it' } },
      {
        type: 'subagent_progress',
        subagent_id: 'explore_1873a2c0',
        subagent_name: 'explore',
        tool_name: 'read',
        tool_context: 'src/a.rs',
        completed: false,
        success: false,
        tool_count: 1,
        total_tokens: 300,
      },
      {
        type: 'subagent_progress',
        subagent_id: 'explore_1873a2c0',
        subagent_name: 'explore',
        tool_name: 'read',
        tool_context: 'src/a.rs',
        completed: true,
        success: false,
        tool_count: 1,
        total_tokens: 900,
      },
      {
        type: 'tool_call_end',
        id: 'toolu_1',
        name: 'explore',
        result: { success: true, output: 'found', data: null },
      },
      { type: 'turn_complete', turn: 1, usage: { input_tokens: 10, output_tokens: 1 } },
      { type: 'done', thread_id: 't-42', total_turns: 1 },
    ];
    const stream = h.sink.openStream('sdk', 'agent-sdk');
    for (const line of lines)
      expect(stream.handleJson(JSON.stringify(line)).outcome).toBe('accepted');
    const spans = h.spans();
    expectOneTrace(spans);
    const child = byName(spans, 'invoke_agent explore');
    expect(child.parentSpanContext?.spanId).toBe(
      byName(spans, 'execute_tool explore').spanContext().spanId,
    );
    expect(byName(spans, 'execute_tool read').attributes['agent.tool.outcome']).toBe('failure');
    expect(child.attributes['agent_sdk.subagent.total_tokens']).toBe(900);
  });

  it('samples a trace with its top run: kept whole when a sub-agent failed, dropped whole otherwise', async () => {
    const sampled = async (child: 'RunCompleted' | 'RunFailed') => {
      const { sink, exporter } = createSampledSink({ ratio: 0 });
      const events = parentEvents();
      for (const e of events.slice(0, 5)) sink.handle(e);
      for (const e of childEvents(undefined, child)) sink.handle(e);
      for (const e of events.slice(5)) sink.handle(e);
      await sink.shutdown();
      return exporter.getFinishedSpans();
    };
    const kept = await sampled('RunFailed');
    expectOneTrace(kept);
    expect(kept.map((s) => s.name)).toContain('invoke_agent researcher');
    expect(kept.map((s) => s.name)).toContain('execute_tool research');
    expect(await sampled('RunCompleted')).toEqual([]);
  });
});
