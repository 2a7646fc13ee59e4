// What model calls cost: priced from the bundled table (genai-prices, whose published prices are
// written out below, so that a change of the table is a failing test to look at), a user's price
// file before it, and "unpriced" — never $0 — for a model no table knows.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { BUNDLED_PRICES_VERSION } from '../../src/pricing/bundled-prices.js';
import { COST_QUANTUM } from '../../src/pricing/price-table.js';
import { behest, RUN_A, RUN_B, SESSION, usageRun as run } from '../helpers/behest-lines.js';
import type { CallTokens } from '../helpers/behest-lines.js';
import { createHarness, spanByName } from '../helpers/harness.js';
import type { Harness } from '../helpers/harness.js';

// Published prices, US dollars per million tokens (the bundled table's data).
const CLAUDE_SONNET_4 = { input: 3, cacheWrite: 3.75, cacheRead: 0.3, output: 15 };
const GPT_4O_MINI = { input: 0.15, cacheRead: 0.075, output: 0.6 };

/** Matches a number equal to `n` to 12 decimal places (a millionth of a micro-dollar). */
const near = (n: number, digits = 12): number => expect.closeTo(n, digits) as number;

const chatsOf = (h: Harness, runId: string): ReadableSpan[] =>
  h
    .spans()
    .filter((s) => s.name.startsWith('chat') && s.attributes['agent.run.id'] === undefined)
    .filter((s) => s.spanContext().traceId === runId.replaceAll('-', ''))
    .sort(
      (a, b) =>
        Number(a.attributes['agent.iteration.number']) -
        Number(b.attributes['agent.iteration.number']),
    );
const rootOf = (h: Harness, runId: string): ReadableSpan =>
  h.spans().find((s) => s.attributes['agent.run.id'] === runId)!;

/** Dollars of a call at per-million prices, input including its cached tokens. */
function dollars(
  prices: { input: number; output: number; cacheRead?: number; cacheWrite?: number },
  call: CallTokens,
): number {
  const cacheRead = call.cacheRead ?? 0;
  const cacheWrite = call.cacheWrite ?? 0;
  return (
    ((call.input - cacheRead - cacheWrite) * prices.input +
      cacheRead * (prices.cacheRead ?? prices.input) +
      cacheWrite * (prices.cacheWrite ?? prices.input) +
      call.output * prices.output) /
    1e6
  );
}

describe('cost of model calls', () => {
  it('prices each call and the run from the bundled table, cache reads and writes at their own rates', async () => {
    const h = createHarness({ agentName: 'coder' });
    const calls: CallTokens[] = [
      { input: 12_000, output: 800, cacheWrite: 10_000 },
      { input: 14_000, output: 1_200, cacheRead: 10_000, cacheWrite: 2_000 },
      { input: 900, output: 50 },
    ];
    h.feed(run(RUN_A, 'anthropic', 'claude-sonnet-4-20250514', calls));
    const chats = chatsOf(h, RUN_A);
    expect(chats).toHaveLength(3);
    chats.forEach((chat, i) => {
      expect(chat.attributes).toMatchObject({
        'gen_ai.usage.cost.amount': near(dollars(CLAUDE_SONNET_4, calls[i]!), 12),
        'gen_ai.usage.cost.currency': 'USD',
        'gen_ai.usage.cost.source': 'local',
        'agent.cost.status': 'priced',
        'agent.cost.price_table': `genai-prices ${BUNDLED_PRICES_VERSION}`,
      });
    });
    const total = calls.reduce((sum, call) => sum + dollars(CLAUDE_SONNET_4, call), 0);
    expect(rootOf(h, RUN_A).attributes).toMatchObject({
      'agent.run.cost.usd': near(total, 12),
      'agent.run.cost.status': 'priced',
      'session.id': SESSION,
      'gen_ai.conversation.id': SESSION,
    });
    // The counter, by provider, model and agent, within the counter's quantum per call.
    const points = await h.points('agent.cost.usd');
    expect(points.map((p) => p.attributes)).toEqual([
      {
        'gen_ai.agent.name': 'coder',
        'gen_ai.provider.name': 'anthropic',
        'gen_ai.request.model': 'claude-sonnet-4-20250514',
      },
    ]);
    expect(Math.abs((points[0]!.value as number) - total)).toBeLessThanOrEqual(3 * COST_QUANTUM);
    // Tokens by pricing class: they add up to the input and output reported.
    const byClass = async (tokenClass: string) =>
      h.sum('agent.tokens', { 'agent.token.class': tokenClass, 'agent.cost.status': 'priced' });
    expect(await byClass('cache_write')).toBe(12_000);
    expect(await byClass('cache_read')).toBe(10_000);
    expect(await byClass('input')).toBe(2_000 + 2_000 + 900);
    expect(await byClass('output')).toBe(2_050);
    expect(await h.sum('agent.tokens', { 'agent.cost.status': 'unpriced' })).toBe(0);
  });

  it('prices a call at the time of its own events: o3 before and after its price cut of 2025-06-10', () => {
    // Published: $10 / $40 per million input / output tokens until 2025-06-09, $2 / $8 from 2025-06-10.
    const call = { input: 20_000, output: 3_000 };
    const costAt = (day: string) => {
      const h = createHarness();
      h.feed(run(RUN_A, 'openai', 'o3', [call]).replaceAll('2025-06-01T', `${day}T`));
      return chatsOf(h, RUN_A)[0]!.attributes['gen_ai.usage.cost.amount'];
    };
    expect(costAt('2025-06-09')).toBeCloseTo(dollars({ input: 10, output: 40 }, call), 12);
    expect(costAt('2025-06-10')).toBeCloseTo(dollars({ input: 2, output: 8 }, call), 12);
  });

  it.each([
    ['only input tokens', { input_tokens: 4_000 }, { input: 4_000, output: 0 }],
    ['only output tokens', { output_tokens: 300 }, { input: 0, output: 300 }],
  ] as const)('prices usage that reports %s', async (_what, usage, call) => {
    const h = createHarness();
    h.feed(
      [
        behest('RunStarted', RUN_A, '00.000', { provider: 'openai', model: 'gpt-4o-mini' }),
        behest('ModelStarted', RUN_A, '01.000', {
          provider: 'openai',
          model: 'gpt-4o-mini',
          iteration: 1,
        }),
        behest('UsageRecorded', RUN_A, '01.200', { usage }),
        behest('AssistantMessageCommitted', RUN_A, '01.300', { message_id: 'm-1' }),
        behest('RunCompleted', RUN_A, '02.000', { finish_reason: 'stop' }),
      ].join('\n'),
    );
    expect(chatsOf(h, RUN_A)[0]!.attributes).toMatchObject({
      'agent.cost.status': 'priced',
      'gen_ai.usage.cost.amount': near(dollars(GPT_4O_MINI, call), 12),
    });
    expect(h.sink.stats().cost.pricedCalls).toBe(1);
    expect(await h.sum('agent.tokens', { 'agent.cost.status': 'priced' })).toBe(
      call.input + call.output,
    );
  });

  it('prices OpenAI cached input at its cached rate', () => {
    const h = createHarness();
    const call = { input: 3_000, output: 200, cacheRead: 2_048 };
    h.feed(run(RUN_A, 'openai', 'gpt-4o-mini', [call]));
    expect(chatsOf(h, RUN_A)[0]!.attributes['gen_ai.usage.cost.amount']).toBeCloseTo(
      dollars(GPT_4O_MINI, call),
      12,
    );
  });

  it('prices reasoning tokens as the provider bills them: as output, within the output tokens', () => {
    const h = createHarness();
    const t = (s: number): [number, number] => [1_750_000_000 + s, 0];
    h.sink.handle({
      type: 'RunStarted',
      runId: RUN_A,
      time: t(0),
      provider: 'openai',
      model: 'o3',
    });
    h.sink.handle({ type: 'ModelStarted', runId: RUN_A, time: t(1), iteration: 1 });
    h.sink.handle({
      type: 'UsageRecorded',
      runId: RUN_A,
      time: t(2),
      usage: { inputTokens: 5_000, outputTokens: 2_000, reasoningOutputTokens: 1_500 },
    });
    h.sink.handle({ type: 'AssistantMessageCommitted', runId: RUN_A, time: t(3) });
    h.sink.handle({ type: 'RunCompleted', runId: RUN_A, time: t(4) });
    // o3: $2 per million input tokens, $8 per million output tokens (reasoning included).
    const chat = spanByName(h.spans(), 'chat o3');
    expect(chat.attributes['gen_ai.usage.cost.amount']).toBeCloseTo(
      (5_000 * 2 + 2_000 * 8) / 1e6,
      12,
    );
    expect(chat.attributes['gen_ai.usage.reasoning.output_tokens']).toBe(1_500);
  });

  it('says a model no table knows is unpriced, never $0, and counts its tokens apart', async () => {
    const h = createHarness();
    h.feed(run(RUN_A, 'vllm', 'acme-internal-70b', [{ input: 1_000, output: 100 }]));
    h.feed(
      run(RUN_B, 'openai', 'gpt-4o-mini', [{ input: 3_000, output: 300 }]).replaceAll(
        '12:00:',
        '12:01:',
      ),
    );
    const unpriced = chatsOf(h, RUN_A)[0]!;
    expect(unpriced.attributes['gen_ai.usage.cost.amount']).toBeUndefined();
    expect(unpriced.attributes).toMatchObject({
      'agent.cost.status': 'unpriced',
      'agent.cost.unpriced_reason': 'unknown_model',
    });
    expect(rootOf(h, RUN_A).attributes['agent.run.cost.usd']).toBeUndefined();
    expect(rootOf(h, RUN_A).attributes['agent.run.cost.status']).toBe('unpriced');
    expect(rootOf(h, RUN_B).attributes['agent.run.cost.status']).toBe('priced');
    // The share a dashboard shows: 1 100 of 4 400 tokens unpriced.
    expect(await h.sum('agent.tokens', { 'agent.cost.status': 'unpriced' })).toBe(1_100);
    expect(await h.sum('agent.tokens')).toBe(4_400);
    const costSeries = (await h.points('agent.cost.usd')).map(
      (p) => p.attributes['gen_ai.request.model'],
    );
    expect(costSeries).toEqual(['gpt-4o-mini']);
  });

  it('marks a run partly priced when some of its calls are unpriced', () => {
    const h = createHarness();
    const lines = run(RUN_A, 'openai', 'gpt-4o-mini', [
      { input: 100, output: 10 },
      { input: 100, output: 10 },
    ]).split('\n');
    // The second call names a model of its own, which no table knows.
    const second = lines.findIndex((l) => l.includes('"iteration":2'));
    lines[second] = lines[second]!.replace('"model":"gpt-4o-mini"', '"model":"acme-internal-70b"');
    h.feed(lines.join('\n'));
    expect(rootOf(h, RUN_A).attributes).toMatchObject({
      'agent.run.cost.status': 'partial',
      'agent.run.cost.usd': near(dollars(GPT_4O_MINI, { input: 100, output: 10 }), 12),
    });
    // The sink's totals over ended runs (what `ingest` prints) add runs up, the unpriced apart.
    h.feed(run(RUN_B, 'openai', 'gpt-4o-mini', [{ input: 1_000, output: 100 }]));
    expect(h.sink.stats().cost).toEqual({
      usd: near(
        dollars(GPT_4O_MINI, { input: 100, output: 10 }) +
          dollars(GPT_4O_MINI, { input: 1_000, output: 100 }),
        12,
      ),
      pricedCalls: 2,
      unpricedCalls: 1,
    });
  });

  it('lets a user price file win, by provider and model or for every model of a provider', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prices-'));
    const file = join(dir, 'prices.json');
    writeFileSync(
      file,
      JSON.stringify({
        name: 'negotiated-2026',
        models: [
          { provider: 'openai', model: 'gpt-4o-mini', input_mtok: 0.1, output_mtok: 0.4 },
          {
            provider: 'vllm',
            model: '*',
            input_mtok: 0.02,
            output_mtok: 0.05,
            reasoning_mtok: 0.5,
          },
        ],
      }),
    );
    const h = createHarness({ prices: file });
    h.feed(run(RUN_A, 'openai', 'gpt-4o-mini', [{ input: 1_000, output: 100 }]));
    expect(chatsOf(h, RUN_A)[0]!.attributes).toMatchObject({
      'gen_ai.usage.cost.amount': near((1_000 * 0.1 + 100 * 0.4) / 1e6, 12),
      'agent.cost.price_table': 'file negotiated-2026',
    });
    // Reasoning tokens (part of the output) at their own rate; the library reports them.
    const t = (ms: number): [number, number] => [
      1_750_000_000 + Math.floor(ms / 1000),
      (ms % 1000) * 1e6,
    ];
    const sink = h.sink;
    sink.handle({
      type: 'RunStarted',
      runId: RUN_B,
      time: t(0),
      provider: 'vllm',
      model: 'qwen3-32b',
    });
    sink.handle({ type: 'ModelStarted', runId: RUN_B, time: t(10), iteration: 1 });
    sink.handle({
      type: 'UsageRecorded',
      runId: RUN_B,
      time: t(20),
      usage: { inputTokens: 2_000, outputTokens: 1_000, reasoningOutputTokens: 600 },
    });
    sink.handle({ type: 'AssistantMessageCommitted', runId: RUN_B, time: t(30) });
    sink.handle({ type: 'RunCompleted', runId: RUN_B, time: t(40) });
    const chat = spanByName(
      h.spans().filter((s) => s.attributes['gen_ai.usage.reasoning.output_tokens'] === 600),
      'chat qwen3-32b',
    );
    expect(chat.attributes['gen_ai.usage.cost.amount']).toBeCloseTo(
      (2_000 * 0.02 + 400 * 0.05 + 600 * 0.5) / 1e6,
      12,
    );
  });

  it('refuses a price file it cannot use, naming the field', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prices-'));
    const write = (value: unknown) => {
      const file = join(dir, `${Math.random()}.json`);
      writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
      return file;
    };
    const problem = (value: unknown) => {
      try {
        createHarness({ prices: write(value) });
        return 'accepted';
      } catch (error) {
        return (error as Error).message.replace(/^.*\.json: /, '');
      }
    };
    expect(problem({ models: [{ model: 'x', input_mtok: 1 }] })).toBe(
      'models[0].output_mtok: missing',
    );
    expect(problem({ models: [{ model: 'x', input_mtok: -1, output_mtok: 1 }] })).toMatch(
      /^models\[0\]\.input_mtok: expected a non-negative number/,
    );
    expect(problem({ models: [{}, { model: 'x', input_mtok: 1, output_mtok: 1, price: 2 }] })).toBe(
      'models[0].model: expected a model name or "*"',
    );
    expect(problem({ models: [{ model: 'x', input_mtok: 1, output_mtok: 1, price: 2 }] })).toBe(
      'models[0].price: unknown field',
    );
    expect(problem('{"models": [')).toMatch(/^not JSON/);
    expect(problem({ model: [] })).toBe('model: unknown field (expected name, models)');
    expect(() => createHarness({ prices: join(dir, 'missing.json') })).toThrow(
      /price file .*missing\.json: cannot be read \(ENOENT\)/,
    );
  });

  it('prices nothing with costs off', async () => {
    const h = createHarness({ prices: false });
    h.feed(run(RUN_A, 'openai', 'gpt-4o-mini', [{ input: 1_000, output: 100 }]));
    expect(chatsOf(h, RUN_A)[0]!.attributes['agent.cost.status']).toBeUndefined();
    expect(rootOf(h, RUN_A).attributes['agent.run.cost.status']).toBeUndefined();
    expect(await h.points('agent.tokens')).toEqual([]);
    const off = createHarness({ env: { AGENT_OTEL_BRIDGE_PRICES: 'off' } });
    off.feed(run(RUN_A, 'openai', 'gpt-4o-mini', [{ input: 1_000, output: 100 }]));
    expect(chatsOf(off, RUN_A)[0]!.attributes['agent.cost.status']).toBeUndefined();
  });

  it('is built against the installed price table version', () => {
    const require = createRequire(import.meta.url);
    const main = require.resolve('@pydantic/genai-prices');
    const manifest = require(join(main, '..', '..', 'package.json')) as { version: string };
    expect(manifest.version).toBe(BUNDLED_PRICES_VERSION);
  });
});
