import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { toSpanId } from '../../src/index.js';
import { behest, RUN_A, SESSION, toolRun } from '../helpers/behest-lines.js';
import { createHarness, spanByName } from '../helpers/harness.js';

const TRACE_A = RUN_A.replaceAll('-', '');
const T0 = 1748779200; // 2025-06-01T12:00:00Z

describe('span tree of a run', () => {
  const h = createHarness({ agentName: 'support-bot' });
  h.feed(toolRun().join('\n'));
  const spans = h.spans();
  const run = spanByName(spans, 'invoke_agent support-bot');
  const iterations = spans.filter((s) => s.name === 'agent.iteration');
  const chats = spans.filter((s) => s.name === 'chat gpt-4o-mini');
  const tool = spanByName(spans, 'execute_tool get_weather');

  it('has run → iteration → chat and tool, with the contract kinds', () => {
    expect(spans).toHaveLength(6);
    expect(run.kind).toBe(SpanKind.INTERNAL);
    expect(run.parentSpanContext).toBeUndefined();
    expect(iterations.map((s) => s.parentSpanContext?.spanId)).toEqual([
      run.spanContext().spanId,
      run.spanContext().spanId,
    ]);
    expect(chats.map((s) => s.kind)).toEqual([SpanKind.CLIENT, SpanKind.CLIENT]);
    expect(chats.map((s) => s.parentSpanContext?.spanId)).toEqual(
      iterations.map((s) => s.spanContext().spanId),
    );
    expect(tool.kind).toBe(SpanKind.INTERNAL);
    expect(tool.parentSpanContext?.spanId).toBe(iterations[0]!.spanContext().spanId);
  });

  it('uses the run id as trace id and deterministic span ids', () => {
    for (const span of spans) expect(span.spanContext().traceId).toBe(TRACE_A);
    expect(run.spanContext().spanId).toBe(toSpanId(TRACE_A, 'run'));
    expect(iterations[1]!.spanContext().spanId).toBe(toSpanId(TRACE_A, 'iteration/2'));
    expect(chats[0]!.spanContext().spanId).toBe(toSpanId(TRACE_A, 'chat/1'));
    expect(tool.spanContext().spanId).toBe(toSpanId(TRACE_A, 'tool/call_1'));
  });

  it("times spans by the events' own timestamps", () => {
    expect(run.startTime).toEqual([T0, 0]);
    expect(run.endTime).toEqual([T0 + 2, 0]);
    expect(iterations[0]!.startTime).toEqual([T0, 200_000_000]);
    expect(iterations[0]!.endTime).toEqual([T0 + 1, 200_000_000]);
    expect(chats[0]!.endTime).toEqual([T0 + 1, 0]); // AssistantMessageCommitted
    expect(tool.startTime).toEqual([T0 + 1, 100_000_000]);
    expect(tool.endTime).toEqual([T0 + 1, 142_000_000]);
    expect(iterations[1]!.endTime).toEqual([T0 + 2, 0]);
  });

  it('sets the run attributes at start and end', () => {
    expect(run.attributes).toEqual({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.conversation.id': SESSION,
      'session.id': SESSION,
      'gen_ai.agent.name': 'support-bot',
      'agent.run.id': RUN_A,
      'agent.run.outcome': 'completed',
      'gen_ai.response.finish_reasons': ['stop'],
      'agent.run.iterations': 2,
      'gen_ai.usage.input_tokens': 912,
      'gen_ai.usage.output_tokens': 47,
      // gpt-4o-mini: $0.15 per million input tokens, $0.60 per million output tokens.
      'agent.run.cost.usd': expect.closeTo(912 * 0.15e-6 + 47 * 0.6e-6, 15) as number,
      'agent.run.cost.status': 'priced',
    });
    expect(run.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('sets iteration, chat and tool attributes', () => {
    expect(iterations[0]!.attributes).toEqual({
      'agent.iteration.number': 1,
      'agent.context.message_count': 3,
    });
    expect(iterations[1]!.attributes).toEqual({ 'agent.iteration.number': 2 });
    expect(chats[0]!.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.conversation.id': SESSION,
      'session.id': SESSION,
      'agent.iteration.number': 1,
      'gen_ai.usage.input_tokens': 412,
      'gen_ai.usage.output_tokens': 37,
      'gen_ai.response.time_to_first_chunk': 0.5,
      'gen_ai.usage.cost.amount': expect.closeTo(412 * 0.15e-6 + 37 * 0.6e-6, 15) as number,
      'gen_ai.usage.cost.currency': 'USD',
      'gen_ai.usage.cost.source': 'local',
      'agent.cost.status': 'priced',
      'agent.cost.price_table': 'genai-prices 0.1.8',
    });
    expect(chats[0]!.events.map((e) => [e.name, e.attributes, e.time])).toEqual([
      [
        'agent.tool_call.requested',
        { 'gen_ai.tool.name': 'get_weather', 'gen_ai.tool.call.id': 'call_1' },
        [T0, 850_000_000],
      ],
    ]);
    expect(tool.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'get_weather',
      'gen_ai.tool.call.id': 'call_1',
      'gen_ai.tool.type': 'function',
      'agent.tool.outcome': 'success',
    });
  });
});

describe('mapping rules', () => {
  it('names the run span invoke_agent without an agent name', () => {
    const h = createHarness();
    h.feed(toolRun().join('\n'));
    expect(h.spans().filter((s) => s.name === 'invoke_agent')).toHaveLength(1);
    expect(spanByName(h.spans(), 'invoke_agent').attributes['gen_ai.agent.name']).toBeUndefined();
  });

  it('marks a failed tool ERROR with tool_error and the scrubbed error text', () => {
    const h = createHarness();
    h.feed(
      [
        behest('RunStarted', RUN_A, '00', {}),
        behest('ModelStarted', RUN_A, '00.1', { iteration: 1, model: 'm' }),
        behest('ToolExecutionStarted', RUN_A, '01', { call_id: 'c1', tool_name: 'db' }),
        behest('ToolExecutionFinished', RUN_A, '02', {
          call_id: 'c1',
          tool_name: 'db',
          result: { Failure: { error: 'auth failed: password=hunter2' } },
          duration_ms: 1000,
        }),
        behest('RunCompleted', RUN_A, '03', { finish_reason: 'stop', iterations: 1 }),
      ].join('\n'),
    );
    const tool = spanByName(h.spans(), 'execute_tool db');
    expect(tool.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: 'auth failed: password=[REDACTED]',
    });
    expect(tool.attributes).toMatchObject({
      'error.type': 'tool_error',
      'agent.tool.outcome': 'failure',
    });
  });

  it('starts a tool whose start was never seen at finish − duration', () => {
    const h = createHarness();
    h.feed(
      [
        behest('RunStarted', RUN_A, '00', {}),
        behest('ToolExecutionFinished', RUN_A, '01.010', {
          call_id: 'c9',
          tool_name: 'fetch',
          result: { Success: { output: 1 } },
          duration_ms: 42,
        }),
        behest('RunCompleted', RUN_A, '02', {}),
      ].join('\n'),
    );
    const tool = spanByName(h.spans(), 'execute_tool fetch');
    expect(tool.startTime).toEqual([T0 + 0, 968_000_000]);
    expect(tool.endTime).toEqual([T0 + 1, 10_000_000]);
    expect(tool.parentSpanContext?.spanId).toBe(toSpanId(TRACE_A, 'run'));
  });

  it('ends the model call at the first tool execution when no message was committed', () => {
    const h = createHarness();
    h.feed(
      [
        behest('ModelStarted', RUN_A, '00', { iteration: 1, model: 'm' }),
        behest('ToolExecutionStarted', RUN_A, '01.5', { call_id: 'c1', tool_name: 't' }),
        behest('ToolExecutionFinished', RUN_A, '02', {
          call_id: 'c1',
          tool_name: 't',
          result: { Success: { output: null } },
        }),
        behest('ModelStarted', RUN_A, '03', { iteration: 2, model: 'm' }),
        behest('RunCompleted', RUN_A, '04', {}),
      ].join('\n'),
    );
    const chats = h.spans().filter((s) => s.name === 'chat m');
    expect(chats.map((c) => c.endTime)).toEqual([
      [T0 + 1, 500_000_000],
      [T0 + 4, 0],
    ]);
    expect(chats[0]!.attributes['agent.span.incomplete']).toBeUndefined();
    expect(chats[1]!.attributes['agent.span.incomplete']).toBe(true);
    expect(chats[0]!.attributes['gen_ai.usage.input_tokens']).toBeUndefined();
  });

  it('fails a run with a classified error.type, scrubbed description and an exception event', () => {
    const h = createHarness();
    h.feed(
      [
        behest('RunStarted', RUN_A, '00', {}),
        behest('ModelStarted', RUN_A, '00.1', { iteration: 1, model: 'm' }),
        behest('ToolExecutionStarted', RUN_A, '01', { call_id: 'c1', tool_name: 'slow' }),
        behest('RunFailed', RUN_A, '05', {
          error: 'provider error: 401 for key sk-proj-AbCdEf0123456789AbCdEf0123',
        }),
      ].join('\n'),
    );
    const spans = h.spans();
    const run = spanByName(spans, 'invoke_agent');
    expect(run.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: 'provider error: 401 for key [REDACTED]',
    });
    expect(run.attributes).toMatchObject({
      'error.type': 'provider',
      'agent.run.outcome': 'failed',
    });
    expect(run.events.map((e) => [e.name, e.attributes])).toEqual([
      [
        'exception',
        { 'exception.message': 'provider error: 401 for key [REDACTED]', 'error.type': 'provider' },
      ],
    ]);
    const tool = spanByName(spans, 'execute_tool slow');
    expect(tool.status.code).toBe(SpanStatusCode.ERROR);
    expect(tool.attributes).toMatchObject({
      'agent.tool.outcome': 'incomplete',
      'agent.span.incomplete': true,
    });
    expect(tool.endTime).toEqual([T0 + 5, 0]);
    expect(spanByName(spans, 'chat m').endTime).toEqual([T0 + 1, 0]);
  });

  it.each([
    ['doom loop detected: read_file called 3 times', 'doom_loop'],
    ['compaction failed: context overflow', 'compaction'],
    ['rate limited (429)', 'provider'],
    ['tool get_weather panicked', 'tool'],
    ['request timed out', 'timeout'],
    ['something odd happened', '_OTHER'],
  ])('classifies %j as %s', (error, type) => {
    const h = createHarness();
    h.feed(
      [behest('RunStarted', RUN_A, '00', {}), behest('RunFailed', RUN_A, '01', { error })].join(
        '\n',
      ),
    );
    expect(spanByName(h.spans(), 'invoke_agent').attributes['error.type']).toBe(type);
  });

  it('leaves a cancelled run UNSET and its open tool incomplete but not ERROR', () => {
    const h = createHarness();
    h.feed(
      [
        behest('RunStarted', RUN_A, '00', {}),
        behest('ModelStarted', RUN_A, '00.1', { iteration: 1, model: 'm' }),
        behest('ToolExecutionStarted', RUN_A, '01', { call_id: 'c1', tool_name: 'tests' }),
        behest('RunCancelled', RUN_A, '03.5', {}),
      ].join('\n'),
    );
    const run = spanByName(h.spans(), 'invoke_agent');
    expect(run.status.code).toBe(SpanStatusCode.UNSET);
    expect(run.attributes['agent.run.outcome']).toBe('cancelled');
    expect(run.attributes['error.type']).toBeUndefined();
    const tool = spanByName(h.spans(), 'execute_tool tests');
    expect(tool.status.code).toBe(SpanStatusCode.UNSET);
    expect(tool.attributes).toMatchObject({
      'agent.tool.outcome': 'incomplete',
      'agent.span.incomplete': true,
    });
  });

  it('puts doom loop events on the run and iteration, breaker events on the run', () => {
    const h = createHarness();
    h.feed(
      [
        behest('RunStarted', RUN_A, '00', {}),
        behest('CompactionCircuitOpened', RUN_A, '00.05', { consecutive_failures: 3 }),
        behest('ModelStarted', RUN_A, '00.1', { iteration: 1, model: 'm' }),
        behest('DoomLoopDetected', RUN_A, '01', {
          description: 'cycle detected: [a, b] repeated 2 times',
        }),
        behest('RunFailed', RUN_A, '01.5', { error: 'agent stopped' }),
      ].join('\n'),
    );
    const run = spanByName(h.spans(), 'invoke_agent');
    expect(run.events.map((e) => e.name)).toEqual([
      'agent.compaction.circuit_breaker.opened',
      'agent.doom_loop.detected',
      'exception',
    ]);
    expect(run.events[0]!.attributes).toEqual({ 'agent.compaction.consecutive_failures': 3 });
    expect(run.events[1]!.attributes).toEqual({
      'agent.doom_loop.description': 'cycle detected: [a, b] repeated 2 times',
    });
    expect(run.attributes['error.type']).toBe('doom_loop');
    const iteration = spanByName(h.spans(), 'agent.iteration');
    expect(iteration.events.map((e) => [e.name, e.time])).toEqual([
      ['agent.doom_loop.detected', [T0 + 1, 0]],
    ]);
  });

  it('reports an unknown finish reason by its raw value', () => {
    const h = createHarness();
    h.feed(
      [
        behest('RunStarted', RUN_A, '00', {}),
        behest('RunCompleted', RUN_A, '01', {
          finish_reason: { unknown: 'pause_turn' },
          iterations: 0,
        }),
      ].join('\n'),
    );
    expect(
      spanByName(h.spans(), 'invoke_agent').attributes['gen_ai.response.finish_reasons'],
    ).toEqual(['pause_turn']);
  });

  it('joins the trace of a parent context, keeping the run id as an attribute', () => {
    const parentSpanContext = { traceId: 'f'.repeat(32), spanId: 'e'.repeat(16), traceFlags: 1 };
    const parentContext = trace.setSpanContext(ROOT_CONTEXT, parentSpanContext);
    const joined = createHarness({ parentContext });
    joined.feed(toolRun().join('\n'));
    const run = spanByName(joined.spans(), 'invoke_agent');
    expect(run.spanContext().traceId).toBe('f'.repeat(32));
    expect(run.parentSpanContext?.spanId).toBe('e'.repeat(16));
    expect(run.attributes['agent.run.id']).toBe(RUN_A);
    expect(new Set(joined.spans().map((s) => s.spanContext().traceId))).toEqual(
      new Set(['f'.repeat(32)]),
    );
  });
});
