// The GenAI conventions switch: v1.41 by default; their current development when
// OTEL_SEMCONV_STABILITY_OPT_IN lists gen_ai_latest_experimental (or genAiConventions: 'latest').
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/index.js';
import { RUN_A, toolRun } from '../helpers/behest-lines.js';
import { createHarness, spanByName } from '../helpers/harness.js';
import type { Harness } from '../helpers/harness.js';

/** toolRun whose first usage reports cache tokens. */
const cachedRun = () =>
  toolRun().map((line) =>
    line.includes('"input_tokens":412')
      ? line.replace(
          '"total_tokens":449',
          '"total_tokens":449,"cache_read_input_tokens":300,"cache_creation_input_tokens":20',
        )
      : line,
  );

async function mapped(options: Parameters<typeof createHarness>[0]): Promise<Harness> {
  const h = createHarness({ agentName: 'support-bot', ...options });
  h.feed(cachedRun().join('\n'));
  await h.sink.shutdown();
  return h;
}

const chatOf = (h: Harness) =>
  h.spans().find((s) => s.name.startsWith('chat') && s.attributes['agent.iteration.number'] === 1)!;

describe('GenAI conventions', () => {
  it('follows v1.41 by default', async () => {
    const h = await mapped({});
    const run = spanByName(h.spans(), 'invoke_agent support-bot');
    expect(run.attributes['gen_ai.provider.name']).toBe('openai');
    const chat = chatOf(h);
    expect(chat.attributes['gen_ai.usage.cache_creation.input_tokens']).toBe(20);
    expect(chat.attributes['gen_ai.usage.cache_write.input_tokens']).toBeUndefined();
    expect(await h.points('gen_ai.invoke_agent.inference_calls')).toEqual([]);
    expect(await h.points('gen_ai.invoke_agent.tool_calls')).toEqual([]);
  });

  it.each([
    [
      'OTEL_SEMCONV_STABILITY_OPT_IN',
      { env: { OTEL_SEMCONV_STABILITY_OPT_IN: 'http, gen_ai_latest_experimental' } },
    ],
    ['genAiConventions', { genAiConventions: 'latest' as const }],
  ])('follows the latest development when %s says so', async (_how, options) => {
    const h = await mapped(options);
    const run = spanByName(h.spans(), 'invoke_agent support-bot');
    expect(run.attributes['gen_ai.provider.name']).toBeUndefined();
    expect(run.attributes['gen_ai.request.model']).toBe('gpt-4o-mini');
    expect(run.attributes['agent.run.id']).toBe(RUN_A);
    // Both names for cache-creation tokens during the transition; the model call keeps its provider.
    const chat = chatOf(h);
    expect(chat.attributes['gen_ai.usage.cache_creation.input_tokens']).toBe(20);
    expect(chat.attributes['gen_ai.usage.cache_write.input_tokens']).toBe(20);
    expect(chat.attributes['gen_ai.provider.name']).toBe('openai');
    const [inference] = await h.points('gen_ai.invoke_agent.inference_calls');
    const [tools] = await h.points('gen_ai.invoke_agent.tool_calls');
    expect(inference?.unit).toBe('{inference_call}');
    expect(tools?.unit).toBe('{tool_call}');
    expect(inference?.value).toMatchObject({ count: 1, sum: 2 });
    expect(tools?.value).toMatchObject({ count: 1, sum: 1 });
    expect(inference?.attributes).toMatchObject({
      'gen_ai.agent.name': 'support-bot',
      'gen_ai.provider.name': 'openai',
      'agent.run.outcome': 'completed',
    });
    // Run-level metrics keep the provider: only the span drops it.
    expect(await h.sum('agent.runs', { 'gen_ai.provider.name': 'openai' })).toBe(1);
  });

  it('rejects an unknown choice', () => {
    expect(() => createHarness({ genAiConventions: 'v2' as 'latest' })).toThrow(ConfigError);
  });
});
