import { diag, DiagLogLevel } from '@opentelemetry/api';
import type { DiagLogger } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { behest, RUN_A } from '../helpers/behest-lines.js';
import { createHarness, spanByName } from '../helpers/harness.js';

const warnings: string[] = [];
const logger: DiagLogger = {
  error: () => undefined,
  warn: (...args: unknown[]) => warnings.push(args.map(String).join(' ')),
  info: () => undefined,
  debug: () => undefined,
  verbose: () => undefined,
};

describe('per-run limits', () => {
  afterEach(() => {
    diag.disable();
    warnings.length = 0;
  });

  it('rejects iterations beyond maxIterationsPerRun, counts each and says so once', async () => {
    diag.setLogger(logger, DiagLogLevel.WARN);
    const h = createHarness({ maxIterationsPerRun: 3 });
    const lines = [
      behest('RunStarted', RUN_A, '00', {}),
      ...Array.from({ length: 6 }, (_, i) =>
        behest('ModelStarted', RUN_A, `0${i + 1}`, { iteration: i + 1, model: 'm' }),
      ),
      behest('RunCompleted', RUN_A, '09', {}),
    ];
    const results = h.feed(lines.join('\n'));
    expect(results.map((r) => r.reason ?? r.outcome)).toEqual([
      'accepted',
      'accepted',
      'accepted',
      'accepted',
      'limit_iterations',
      'limit_iterations',
      'limit_iterations',
      'accepted',
    ]);
    expect(h.spans().filter((s) => s.name === 'agent.iteration')).toHaveLength(3);
    expect(await h.sum('agent_bridge.events', { 'agent_bridge.reason': 'limit_iterations' })).toBe(
      3,
    );
    expect(warnings.filter((w) => w.includes('iterations'))).toHaveLength(1);
    expect(results.filter((r) => r.reason === 'limit_iterations').map((r) => r.outcome)).toEqual([
      'rejected',
      'rejected',
      'rejected',
    ]);
    expect(
      await h.sum('agent_bridge.limits.hit', { 'agent_bridge.limit': 'limit_iterations' }),
    ).toBe(3);
  });

  it('rejects tool executions beyond maxToolsPerRun, started or only finished', async () => {
    const h = createHarness({ maxToolsPerRun: 2 });
    const results = h.feed(
      [
        behest('RunStarted', RUN_A, '00', {}),
        behest('ToolExecutionStarted', RUN_A, '01', { call_id: 'a', tool_name: 't' }),
        behest('ToolExecutionFinished', RUN_A, '02', {
          call_id: 'b',
          tool_name: 't',
          result: { Success: { output: 1 } },
        }),
        behest('ToolExecutionStarted', RUN_A, '03', { call_id: 'c', tool_name: 't' }),
        behest('ToolExecutionFinished', RUN_A, '04', {
          call_id: 'd',
          tool_name: 't',
          result: { Success: { output: 1 } },
        }),
        behest('ToolExecutionFinished', RUN_A, '05', {
          call_id: 'a',
          tool_name: 't',
          result: { Success: { output: 1 } },
        }),
        behest('RunCompleted', RUN_A, '06', {}),
      ].join('\n'),
    );
    expect(results.map((r) => r.reason ?? r.outcome)).toEqual([
      'accepted',
      'accepted',
      'accepted',
      'limit_tools',
      'limit_tools',
      'accepted',
      'accepted',
    ]);
    expect(h.spans().filter((s) => s.name === 'execute_tool t')).toHaveLength(2);
    expect(results.filter((r) => r.reason === 'limit_tools').map((r) => r.outcome)).toEqual([
      'rejected',
      'rejected',
    ]);
    expect(await h.sum('agent_bridge.limits.hit', { 'agent_bridge.limit': 'limit_tools' })).toBe(2);
  });

  it('remembers only the latest event keys of a run, so a long run does not grow without bound', () => {
    const h = createHarness();
    const calls = Array.from({ length: 1100 }, (_, i) =>
      behest('ToolCallStarted', RUN_A, `00.${String(i).padStart(4, '0')}`, {
        call_id: `c${i}`,
        tool_name: 't',
      }),
    );
    h.feed([behest('RunStarted', RUN_A, '00', {}), ...calls].join('\n'));
    // The latest event is recognised as a duplicate; an older one, long applied, is no longer
    // remembered one by one, but it is behind what was applied: counted as late, never re-applied.
    expect(h.sink.handleJson(calls.at(-1)!)).toMatchObject({ outcome: 'duplicate' });
    expect(h.sink.handleJson(calls[0]!)).toMatchObject({
      outcome: 'late',
      reason: 'reorder_window',
    });
    expect(h.spans()).toHaveLength(0);
  });

  it('recognises every replayed delta without remembering deltas one by one', () => {
    const h = createHarness();
    const deltas = Array.from({ length: 5000 }, (_, i) =>
      behest('TextDelta', RUN_A, `00.${String(i).padStart(4, '0')}`, { delta: 'x' }),
    );
    h.feed([behest('RunStarted', RUN_A, '00', {}), ...deltas].join('\n'));
    expect(h.sink.handleJson(deltas.at(-1)!)).toMatchObject({ outcome: 'duplicate' });
    expect(h.sink.handleJson(deltas[0]!)).toMatchObject({ outcome: 'late' });
    // Two different deltas at the same instant are both kept; the same one twice is not.
    const sameTime = (delta: string) => behest('TextDelta', RUN_A, '00.6000', { delta });
    expect(h.sink.handleJson(sameTime('a'))).toMatchObject({ outcome: 'accepted' });
    expect(h.sink.handleJson(sameTime('b'))).toMatchObject({ outcome: 'accepted' });
    expect(h.sink.handleJson(sameTime('a'))).toMatchObject({ outcome: 'duplicate' });
  });
});

describe('span and input limits', () => {
  afterEach(() => {
    diag.disable();
    warnings.length = 0;
  });

  const time = (i: number): [number, number] => [1748779200 + i, 0];

  it('keeps at most maxEventsPerSpan events on a span, counts the rest and says so once', async () => {
    diag.setLogger(logger, DiagLogLevel.WARN);
    const h = createHarness({ maxEventsPerSpan: 3 });
    const lines = [
      behest('RunStarted', RUN_A, '00', {}),
      ...Array.from({ length: 5 }, (_, i) =>
        behest('DoomLoopDetected', RUN_A, `0${i + 1}`, { description: `loop ${i}` }),
      ),
      behest('RunCompleted', RUN_A, '09', {}),
    ];
    expect(h.feed(lines.join('\n')).every((r) => r.outcome === 'accepted')).toBe(true);
    const run = h.spans().find((s) => s.name === 'invoke_agent')!;
    expect(run.events.map((e) => e.attributes?.['agent.doom_loop.description'])).toEqual([
      'loop 0',
      'loop 1',
      'loop 2',
    ]);
    // Every doom loop still counts in its own metric; only the span events are bounded.
    expect(await h.sum('agent.doom_loops')).toBe(5);
    expect(
      await h.sum('agent_bridge.limits.hit', { 'agent_bridge.limit': 'events_per_span' }),
    ).toBe(2);
    expect(warnings.filter((w) => w.includes('events'))).toHaveLength(1);
  });

  it('bounds the tool-call events kept for a model call until its span is created', () => {
    const h = createHarness({ maxEventsPerSpan: 2 });
    h.feed(
      [
        behest('RunStarted', RUN_A, '00', {}),
        behest('ModelStarted', RUN_A, '01', { iteration: 1, model: 'm' }),
        ...Array.from({ length: 4 }, (_, i) =>
          behest('ToolCallCompleted', RUN_A, `02.${i}`, {
            call: { id: `c${i}`, name: 't', arguments: {} },
          }),
        ),
        behest('RunCompleted', RUN_A, '09', {}),
      ].join('\n'),
    );
    const chat = h.spans().find((s) => s.name === 'chat m')!;
    expect(chat.events.map((e) => e.attributes?.['gen_ai.tool.call.id'])).toEqual(['c0', 'c1']);
  });

  it('keeps at most maxAttributesPerSpan runtime-specific attributes on a span', async () => {
    const h = createHarness({ maxAttributesPerSpan: 3 });
    h.sink.handle({ type: 'RunStarted', runId: RUN_A, time: time(0) });
    const annotation = (i: number, attributes: Record<string, string>) =>
      h.sink.handle({ type: 'Annotation', runId: RUN_A, time: time(i), target: 'run', attributes });
    annotation(1, { 'x.a': '1', 'x.b': '2' });
    annotation(2, { 'x.c': '3', 'x.d': '4' });
    annotation(3, { 'x.e': '5' });
    h.sink.handle({ type: 'RunCompleted', runId: RUN_A, time: time(4) });
    const run = h.spans().find((s) => s.name === 'invoke_agent')!;
    expect(Object.keys(run.attributes).filter((k) => k.startsWith('x.'))).toEqual([
      'x.a',
      'x.b',
      'x.c',
    ]);
    expect(
      await h.sum('agent_bridge.limits.hit', { 'agent_bridge.limit': 'attributes_per_span' }),
    ).toBe(2);
  });

  it('takes annotations that fill maxAttributesPerSpan exactly without counting a limit', async () => {
    const h = createHarness({ maxAttributesPerSpan: 3 });
    h.sink.handle({ type: 'RunStarted', runId: RUN_A, time: time(0) });
    h.sink.handle({
      type: 'Annotation',
      runId: RUN_A,
      time: time(1),
      target: 'run',
      attributes: { 'x.a': '1', 'x.b': '2', 'x.c': '3' },
    });
    h.sink.handle({ type: 'RunCompleted', runId: RUN_A, time: time(2) });
    const run = h.spans().find((s) => s.name === 'invoke_agent')!;
    expect(Object.keys(run.attributes).filter((k) => k.startsWith('x.'))).toHaveLength(3);
    expect(await h.sum('agent_bridge.limits.hit')).toBe(0);
  });

  it('puts each annotation on the span it targets, list values scrubbed, and a model-call event on its call', () => {
    const h = createHarness();
    const secret = `ghp_${'a1B2'.repeat(9)}`;
    const annotate = (i: number, target: 'run' | 'iteration' | 'model_call' | 'tool', extra = {}) =>
      h.sink.handle({
        type: 'Annotation',
        runId: RUN_A,
        time: time(i),
        target,
        attributes: { [`x.${target}`]: [`on ${target}`, secret], [`x.${target}.text`]: secret },
        ...extra,
      });
    h.sink.handle({ type: 'RunStarted', runId: RUN_A, time: time(0), provider: 'p', model: 'm' });
    h.sink.handle({ type: 'ModelStarted', runId: RUN_A, time: time(1), iteration: 1 });
    annotate(2, 'iteration');
    annotate(3, 'model_call', { event: 'x.retry' });
    h.sink.handle({
      type: 'ToolExecutionStarted',
      runId: RUN_A,
      time: time(4),
      callId: 'c1',
      toolName: 't',
    });
    annotate(5, 'tool', { callId: 'c1' });
    annotate(6, 'run');
    h.sink.handle({
      type: 'ToolExecutionFinished',
      runId: RUN_A,
      time: time(7),
      callId: 'c1',
      toolName: 't',
      result: { ok: true, output: 'ok' },
    });
    h.sink.handle({ type: 'RunCompleted', runId: RUN_A, time: time(8) });
    const byName = (name: string) => h.spans().find((s) => s.name === name)!;
    const scrubbed = (target: string) => [`on ${target}`, '[REDACTED]'];
    expect(byName('agent.iteration').attributes['x.iteration']).toEqual(scrubbed('iteration'));
    expect(byName('execute_tool t').attributes['x.tool']).toEqual(scrubbed('tool'));
    expect(byName('invoke_agent').attributes['x.run']).toEqual(scrubbed('run'));
    expect(byName('invoke_agent').attributes['x.run.text']).toBe('[REDACTED]');
    const retry = byName('chat m').events.find((e) => e.name === 'x.retry');
    expect(retry?.attributes?.['x.model_call']).toEqual(scrubbed('model_call'));
    // Each only where it was aimed.
    expect(byName('invoke_agent').attributes['x.iteration']).toBeUndefined();
    expect(byName('agent.iteration').attributes['x.tool']).toBeUndefined();
  });

  it("never lets runtime attributes crowd out the contract's own: tokens and outcome always fit", () => {
    expect(() => createHarness({ maxAttributesPerSpan: 97 })).toThrow(/at most 96/);
    const h = createHarness({ maxAttributesPerSpan: 96 });
    h.sink.handle({ type: 'RunStarted', runId: RUN_A, time: time(0), provider: 'p', model: 'm' });
    for (let i = 0; i < 200; i += 1)
      h.sink.handle({
        type: 'Annotation',
        runId: RUN_A,
        time: time(1),
        target: 'run',
        attributes: { [`x.k${i}`]: String(i) },
      });
    h.sink.handle({
      type: 'UsageRecorded',
      runId: RUN_A,
      time: time(2),
      usage: { inputTokens: 7, outputTokens: 3 },
    });
    h.sink.handle({ type: 'RunFailed', runId: RUN_A, time: time(3), error: 'boom' });
    const run = h.spans().find((s) => s.name === 'invoke_agent')!;
    expect(Object.keys(run.attributes).filter((k) => k.startsWith('x.'))).toHaveLength(96);
    expect(run.attributes).toMatchObject({
      'gen_ai.usage.input_tokens': 7,
      'gen_ai.usage.output_tokens': 3,
      'agent.run.outcome': 'failed',
    });
    expect(typeof run.attributes['error.type']).toBe('string');
  });

  it('cuts free texts to maxAttributeLength after scrubbing them', async () => {
    const h = createHarness({ maxAttributeLength: 40 });
    const error = `token=abcdefghijklmnop ${'x'.repeat(10_000)}`;
    h.feed(
      [behest('RunStarted', RUN_A, '00', {}), behest('RunFailed', RUN_A, '01', { error })].join(
        '\n',
      ),
    );
    const run = h.spans().find((s) => s.name === 'invoke_agent')!;
    const message = run.status.message!;
    expect(message.startsWith('token=[REDACTED] xxx')).toBe(true);
    expect(message.endsWith('…[truncated]')).toBe(true);
    expect(message.length).toBe(40 + '…[truncated]'.length);
    expect(run.events[0]!.attributes?.['exception.message']).toBe(message);
    expect(
      await h.sum('agent_bridge.limits.hit', { 'agent_bridge.limit': 'attribute_length' }),
    ).toBeGreaterThanOrEqual(1);
  });

  it('rejects lines nested deeper than maxJsonDepth before parsing them', async () => {
    const h = createHarness({ maxJsonDepth: 8 });
    const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const deep = `{"ToolCallCompleted":{"run_id":"${RUN_A}","call":{"id":"c","name":"t","arguments":${nested(7)}},"timestamp":"2025-06-01T12:00:01Z"}}`;
    const shallow = `{"ToolCallCompleted":{"run_id":"${RUN_A}","call":{"id":"c","name":"t","arguments":${nested(4)}},"timestamp":"2025-06-01T12:00:01Z"}}`;
    // Brackets inside strings are text, not nesting.
    const inString = behest('RunFailed', RUN_A, '02', { error: '[[[[[[[[[[[[[[[[[[[[' });
    const results = h.feed(
      [behest('RunStarted', RUN_A, '00', {}), deep, shallow, inString].join('\n'),
    );
    expect(results.map((r) => r.reason ?? r.outcome)).toEqual([
      'accepted',
      'json_too_deep',
      'accepted',
      'accepted',
    ]);
    expect(results[1]!.message).toBe('JSON nested deeper than 8 levels (limit maxJsonDepth)');
    expect(await h.sum('agent_bridge.events', { 'agent_bridge.reason': 'json_too_deep' })).toBe(1);
  });

  it('answers a line its decoder cannot read with a counted rejection, never a throw', async () => {
    const h = createHarness();
    // A JavaScript caller can hand over anything; this one throws when its length is read.
    const hostile = {
      get length(): number {
        throw new Error('boom');
      },
    } as unknown as string;
    const result = h.sink.handleJson(hostile);
    expect(result).toMatchObject({ outcome: 'rejected', reason: 'internal_error' });
    expect(h.sink.openStream('s').handleJson(hostile).reason).toBe('internal_error');
    expect(await h.sum('agent_bridge.events', { 'agent_bridge.reason': 'internal_error' })).toBe(2);
    expect(h.sink.handleJson(behest('RunStarted', RUN_A, '00', {})).outcome).toBe('accepted');
  });

  it('rejects a million levels of nesting without parsing them', () => {
    const h = createHarness();
    const result = h.sink.handleJson(`${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`);
    expect(result).toMatchObject({ outcome: 'rejected', reason: 'json_too_deep' });
  });

  it('refuses limits that are not positive integers', () => {
    expect(() => createHarness({ maxEventsPerSpan: 0 })).toThrow(
      'maxEventsPerSpan must be a positive integer, got 0',
    );
    const fromEnv = createHarness({ env: { AGENT_OTEL_BRIDGE_MAX_JSON_DEPTH: '2' } });
    expect(fromEnv.sink.handleJson('[[[]]]')).toMatchObject({ reason: 'json_too_deep' });
    expect(fromEnv.sink.handleJson('[[]]')).toMatchObject({ reason: 'not_an_object' });
  });

  it('records at most maxMetricLabelValues model and tool names in metrics, then _OTHER', async () => {
    const h = createHarness({ maxMetricLabelValues: 2 });
    const lines = ['m1', 'm2', 'm3'].flatMap((model, i) => {
      const run = `0190f3a2-7c4e-4b8a-9d2e-00000000000${i}`;
      return [
        behest('RunStarted', run, '00', { provider: 'p', model }),
        behest('ToolExecutionFinished', run, '00.5', {
          call_id: 'c',
          tool_name: `tool-${i}`,
          result: { Success: { output: 1 } },
          duration_ms: 1,
        }),
        behest('RunCompleted', run, '01', {}),
      ];
    });
    h.feed(lines.join('\n'));
    expect(await h.sum('agent.runs', { 'gen_ai.request.model': 'm3' })).toBe(0);
    // Only the name over the budget becomes _OTHER: the point keeps its other attributes.
    expect(
      await h.sum('agent.runs', {
        'gen_ai.request.model': '_OTHER',
        'gen_ai.provider.name': 'p',
        'agent.run.outcome': 'completed',
      }),
    ).toBe(1);
    expect(
      await h.sum('agent.tool.calls', {
        'gen_ai.tool.name': '_OTHER',
        'agent.tool.outcome': 'success',
      }),
    ).toBe(1);
    // Spans keep the real names.
    expect(h.spans().some((s) => s.attributes['gen_ai.request.model'] === 'm3')).toBe(true);
    expect(
      await h.sum('agent_bridge.limits.hit', { 'agent_bridge.limit': 'metric_label_values' }),
    ).toBeGreaterThan(0);
  });

  it('cuts captured output past maxContentBytes, even when a delta ends exactly at the limit, and captures nothing of a call that streamed nothing', () => {
    const output = (deltas: string[]) => {
      const h = createHarness({ captureContent: true, maxContentBytes: 20 });
      h.feed(
        [
          behest('RunStarted', RUN_A, '00', { provider: 'p', model: 'm' }),
          behest('ModelStarted', RUN_A, '00.100', { iteration: 1 }),
          ...deltas.map((delta, i) =>
            behest('TextDelta', RUN_A, `00.${String(200 + i).padStart(3, '0')}`, { delta }),
          ),
          behest('AssistantMessageCommitted', RUN_A, '00.900', {}),
          behest('RunCompleted', RUN_A, '01', {}),
        ].join('\n'),
      );
      const messages = spanByName(h.spans(), 'chat m').attributes['gen_ai.output.messages'];
      if (typeof messages !== 'string') return undefined;
      return (JSON.parse(messages) as { parts: { content: string }[] }[])[0]!.parts[0]!.content;
    };
    expect(output(['exactly twenty chars'])).toBe('exactly twenty chars');
    // One more delta after exactly the limit: cut, and said to be.
    const marker = '…[truncated]';
    expect(output(['exactly twenty chars', '!'])).toBe(
      `${'exactly twenty chars'.slice(0, 20 - Buffer.byteLength(marker))}${marker}`,
    );
    expect(output([])).toBeUndefined();
  });

  it('keeps at most 64 captured tool arguments waiting for their execution', async () => {
    const h = createHarness({ captureContent: true });
    h.feed(
      [
        behest('RunStarted', RUN_A, '00', {}),
        ...Array.from({ length: 70 }, (_, i) =>
          behest('ToolCallCompleted', RUN_A, `00.${String(i + 1).padStart(3, '0')}`, {
            call: { id: `c${i}`, name: 't', arguments: { i } },
          }),
        ),
        behest('ToolExecutionStarted', RUN_A, '00.500', { call_id: 'c0', tool_name: 't' }),
        behest('ToolExecutionStarted', RUN_A, '00.600', { call_id: 'c69', tool_name: 't' }),
        behest('RunCompleted', RUN_A, '01', {}),
      ].join('\n'),
    );
    const args = (id: string) =>
      h.spans().find((s) => s.attributes['gen_ai.tool.call.id'] === id)?.attributes[
        'gen_ai.tool.call.arguments'
      ];
    expect(args('c0')).toBeUndefined();
    expect(args('c69')).toBe('{"i":69}');
    expect(
      await h.sum('agent_bridge.limits.hit', { 'agent_bridge.limit': 'pending_tool_arguments' }),
    ).toBe(6);
  });

  it('scrubs what a rejection quotes of its input', () => {
    const h = createHarness();
    const result = h.sink.handleJson(
      behest('RunStarted', RUN_A, '00', {}).replace(
        /"timestamp":"[^"]*"/,
        `"timestamp":"ghp_${'a1B2'.repeat(9)}"`,
      ),
    );
    expect(result.outcome).toBe('rejected');
    expect(result.message).toContain('[REDACTED]');
    expect(result.message).not.toContain('ghp_');
  });
});
