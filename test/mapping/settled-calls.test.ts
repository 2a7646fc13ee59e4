// A model call's span and metrics leave when the call has settled (committed, usage in), not
// when its run ends: an open run shows its finished calls and their tokens while it runs.
import { describe, expect, it } from 'vitest';
import { behest, RUN_A, toolRun } from '../helpers/behest-lines.js';
import { createHarness, spanByName } from '../helpers/harness.js';

const names = (h: ReturnType<typeof createHarness>) =>
  h
    .spans()
    .map((s) => s.name)
    .sort();
const usage = (input: number, output: number, iteration?: number) => ({
  usage: { input_tokens: input, output_tokens: output, total_tokens: input + output },
  ...(iteration === undefined ? {} : { iteration }),
});

describe('model calls as they settle', () => {
  it('makes each call and records its tokens and duration when it settles, the run still open', async () => {
    const h = createHarness();
    const lines = toolRun();
    // Up to the first commit: usage came while streaming, the commit settles the call.
    const commit = lines.findIndex((l) => l.includes('AssistantMessageCommitted'));
    h.feed(lines.slice(0, commit).join('\n'));
    expect(names(h)).toEqual([]);
    // Its tokens are recorded as they are reported: one input and one output point.
    expect(await h.sum('gen_ai.client.token.usage')).toBe(2);
    h.feed(lines[commit]!);
    expect(names(h)).toEqual(['chat gpt-4o-mini']);
    const chat = spanByName(h.spans(), 'chat gpt-4o-mini');
    expect(chat.attributes).toMatchObject({
      'gen_ai.usage.input_tokens': 412,
      'gen_ai.usage.output_tokens': 37,
      'agent.iteration.number': 1,
    });
    expect(chat.attributes['agent.span.incomplete']).toBeUndefined();
    expect(await h.sum('gen_ai.client.operation.duration')).toBe(1);
    expect(h.sink.stats().runs.open).toBe(1);
    // The rest of the run: the second call settles at its commit too, the root at the end.
    h.feed(lines.slice(commit + 1, -1).join('\n'));
    expect(names(h)).toEqual([
      'agent.iteration',
      'chat gpt-4o-mini',
      'chat gpt-4o-mini',
      'execute_tool get_weather',
    ]);
    h.feed(lines.at(-1)!);
    expect(h.spans()).toHaveLength(6);
    expect(await h.sum('gen_ai.client.operation.duration')).toBe(2);
    expect(spanByName(h.spans(), 'invoke_agent').attributes).toMatchObject({
      'gen_ai.usage.input_tokens': 912,
      'gen_ai.usage.output_tokens': 47,
    });
  });

  it('waits for the commit of a call a tool ended, its usage in after it', () => {
    const h = createHarness();
    h.feed(
      [
        behest('RunStarted', RUN_A, '00.000', { provider: 'openai', model: 'm' }),
        behest('ModelStarted', RUN_A, '00.100', { iteration: 1 }),
        behest('ToolExecutionStarted', RUN_A, '00.300', { call_id: 'c1', tool_name: 't' }),
        behest('UsageRecorded', RUN_A, '00.350', usage(10, 2, 1)),
      ].join('\n'),
    );
    expect(names(h)).toEqual([]);
    h.feed(behest('AssistantMessageCommitted', RUN_A, '00.400', { iteration: 1 }));
    const chat = spanByName(h.spans(), 'chat m');
    // It ended when the tool started; the commit only settled it.
    expect(chat.endTime).toEqual([1748779200, 300_000_000]);
  });

  it('waits for usage reported after the commit (crabtalk reports it at the run end)', () => {
    const h = createHarness();
    h.feed(
      [
        behest('RunStarted', RUN_A, '00.000', { provider: 'openai', model: 'm' }),
        behest('ModelStarted', RUN_A, '00.100', { iteration: 1 }),
        behest('AssistantMessageCommitted', RUN_A, '00.500', { iteration: 1 }),
      ].join('\n'),
    );
    expect(names(h)).toEqual([]);
    h.feed(behest('UsageRecorded', RUN_A, '00.600', usage(10, 2, 1)));
    const chat = spanByName(h.spans(), 'chat m');
    expect(chat.attributes['gen_ai.usage.input_tokens']).toBe(10);
    expect(chat.endTime).toEqual([1748779200, 500_000_000]);
  });

  it('makes a call that never reports usage with its run', () => {
    const h = createHarness();
    h.feed(
      [
        behest('RunStarted', RUN_A, '00.000', { provider: 'openai', model: 'm' }),
        behest('ModelStarted', RUN_A, '00.100', { iteration: 1 }),
        behest('AssistantMessageCommitted', RUN_A, '00.500', {}),
        behest('ModelStarted', RUN_A, '00.600', { iteration: 2 }),
      ].join('\n'),
    );
    expect(names(h)).toEqual(['agent.iteration']);
    h.feed(behest('RunCompleted', RUN_A, '01.000', { iterations: 2 }));
    const calls = h.spans().filter((s) => s.name === 'chat m');
    expect(calls.map((c) => c.endTime)).toEqual([
      [1748779200, 500_000_000],
      [1748779201, 0],
    ]);
  });

  it('counts usage that arrives after its call left in the metrics and the run, and notes it', async () => {
    const h = createHarness();
    h.feed(
      [
        behest('RunStarted', RUN_A, '00.000', { provider: 'openai', model: 'm' }),
        behest('ModelStarted', RUN_A, '00.100', { iteration: 1 }),
        behest('UsageRecorded', RUN_A, '00.200', usage(10, 2)),
        behest('AssistantMessageCommitted', RUN_A, '00.500', {}),
        // More usage, after the call's span was made.
        behest('UsageRecorded', RUN_A, '00.700', usage(5, 1)),
        behest('RunCompleted', RUN_A, '01.000', { iterations: 1 }),
      ].join('\n'),
    );
    const chat = spanByName(h.spans(), 'chat m');
    expect(chat.attributes['gen_ai.usage.input_tokens']).toBe(10);
    const run = spanByName(h.spans(), 'invoke_agent');
    expect(run.attributes['gen_ai.usage.input_tokens']).toBe(15);
    expect(run.events.map((e) => [e.name, e.attributes])).toEqual([
      [
        'agent.usage.after_call',
        {
          'gen_ai.usage.input_tokens': 5,
          'gen_ai.usage.output_tokens': 1,
          // Priced on its own with the run's model, which no table knows.
          'agent.cost.status': 'unpriced',
          'agent.cost.unpriced_reason': 'unknown_model',
        },
      ],
    ]);
    const input = (await h.points('gen_ai.client.token.usage')).find(
      (p) => p.attributes['gen_ai.token.type'] === 'input',
    );
    expect(input?.value).toMatchObject({ count: 2, sum: 15 });
  });

  it("counts usage after its call in the latest conventions' usage counters too, and notes none before any call", async () => {
    const h = createHarness({ genAiConventions: 'latest' });
    h.feed(
      [
        behest('RunStarted', RUN_A, '00.000', { provider: 'openai', model: 'm' }),
        // Before any call: counted, but no call to say it came after.
        behest('UsageRecorded', RUN_A, '00.050', usage(3, 0)),
        behest('ModelStarted', RUN_A, '00.100', { iteration: 1 }),
        behest('UsageRecorded', RUN_A, '00.200', usage(10, 2)),
        behest('AssistantMessageCommitted', RUN_A, '00.500', {}),
        behest('UsageRecorded', RUN_A, '00.700', usage(5, 1)),
        behest('RunCompleted', RUN_A, '01.000', { iterations: 1 }),
      ].join('\n'),
    );
    const run = spanByName(h.spans(), 'invoke_agent');
    expect(run.events.map((e) => e.name)).toEqual(['agent.usage.after_call']);
    expect(await h.sum('gen_ai.client.inference.usage.input_tokens')).toBe(18);
    expect(await h.sum('gen_ai.client.inference.usage.output_tokens')).toBe(3);
  });

  it('records a settled call once when its run is let go and rebuilt from its events', async () => {
    const h = createHarness();
    const lines = toolRun();
    const commit = lines.findIndex((l) => l.includes('AssistantMessageCommitted'));
    h.feed(lines.slice(0, commit + 1).join('\n'));
    h.sink.dropRun(RUN_A);
    h.feed(lines.join('\n'));
    expect(await h.sum('gen_ai.client.operation.duration')).toBe(2);
    expect(await h.sum('gen_ai.client.token.usage')).toBe(4);
    expect(await h.sum('agent.runs')).toBe(1);
    // The first call's span left twice, with the same id and content.
    const first = h
      .spans()
      .filter((s) => s.name === 'chat gpt-4o-mini' && s.attributes['agent.iteration.number'] === 1);
    expect(first).toHaveLength(2);
    expect(first[0]!.spanContext().spanId).toBe(first[1]!.spanContext().spanId);
    expect(first[0]!.attributes).toEqual(first[1]!.attributes);
  });
});
