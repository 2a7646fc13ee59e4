// The bundled table looks each (provider, model) pair up once and prices later calls against the
// model it found: on generated calls over every model of every provider of the table, at generated
// times (before and after dated price changes, across the hours of time-of-day prices), with
// generated token counts, each price is exactly the table's own answer for the same call.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { BUNDLED_PRICES_NAME, bundledPriceTable } from '../../src/pricing/bundled-prices.js';
import type { Price, UsageTokens } from '../../src/pricing/price-table.js';
import { totalInput } from '../../src/pricing/token-classes.js';
import { seeded } from '../helpers/behest-delivery.js';
import { GENAI_PROVIDERS as PROVIDERS } from '../helpers/genai-providers.js';

interface Genai {
  calcPrice(
    usage: Record<string, number>,
    model: string,
    options: { providerId?: string; timestamp: Date },
  ): { total_price: number } | null;
  findProvider(options: { providerId: string }): { models: { id: string }[] } | undefined;
}
const genai = createRequire(import.meta.url)('@pydantic/genai-prices') as Genai;

/** The table's own answer, searched afresh for every call. */
function reference(
  provider: string | undefined,
  model: string,
  usage: UsageTokens,
  at: Date,
): Price {
  let result: { total_price: number } | null;
  try {
    result = genai.calcPrice(
      {
        input_tokens: totalInput(usage),
        cache_read_tokens: usage.cacheRead,
        cache_write_tokens: usage.cacheWrite,
        output_tokens: usage.output,
        ...(usage.reasoning > 0 ? { output_reasoning_tokens: usage.reasoning } : {}),
      },
      model,
      { ...(provider === undefined ? {} : { providerId: provider }), timestamp: at },
    );
  } catch {
    return { status: 'unpriced', reason: 'price_error' };
  }
  if (result === null) return { status: 'unpriced', reason: 'unknown_model' };
  return { status: 'priced', usd: result.total_price, table: BUNDLED_PRICES_NAME };
}

describe('the bundled table’s model lookups, made once per provider and model', () => {
  it('price every generated call exactly as the table does', () => {
    const random = seeded(20261127);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
    const models = PROVIDERS.flatMap((provider) =>
      (genai.findProvider({ providerId: provider })?.models ?? []).map(
        (m) => [provider, m.id] as const,
      ),
    );
    expect(models.length).toBeGreaterThan(1500);
    const table = bundledPriceTable();
    const count = (n: number) => (random() < 0.2 ? 0 : Math.floor(random() ** 3 * n));
    let priced = 0;
    for (let i = 0; i < 8000; i += 1) {
      const [provider, model] = pick(models);
      // Some calls without a provider, some under another provider, some unknown models.
      const asked = random() < 0.1 ? undefined : random() < 0.1 ? pick(PROVIDERS) : provider;
      const name =
        random() < 0.05
          ? `${model}-finetune-${i % 7}`
          : random() < 0.1
            ? model.toUpperCase()
            : model;
      const input = count(400_000);
      const cacheRead = Math.min(input, count(100_000));
      const cacheWrite = Math.min(input - cacheRead, count(50_000));
      const output = count(40_000);
      const usage: UsageTokens = {
        input,
        output,
        cacheRead,
        cacheWrite,
        // Now and then more reasoning than output, which a table pricing reasoning refuses.
        reasoning: random() < 0.05 ? output + 1 + count(1000) : Math.min(output, count(20_000)),
      };
      const at = new Date(Date.UTC(2023, 0, 1) + Math.floor(random() * 5 * 365 * 86_400_000));
      const got = table.price({ provider: asked, model: name, usage, at });
      expect(got, `${asked ?? '-'} ${name} at ${at.toISOString()}`).toStrictEqual(
        reference(asked, name, usage, at),
      );
      if (got.status === 'priced') priced += 1;
    }
    // The generated calls reach both answers.
    expect(priced).toBeGreaterThan(4000);
    expect(priced).toBeLessThan(8000);
  });

  it('resolves LiteLLM names as the table does', () => {
    const table = bundledPriceTable();
    const usage: UsageTokens = {
      input: 1000,
      output: 100,
      cacheRead: 0,
      cacheWrite: 0,
      reasoning: 0,
    };
    const at = new Date(Date.UTC(2025, 5, 1));
    for (const model of ['openai/gpt-4o', 'anthropic/claude-3-5-sonnet-20241022', 'gpt-4o'])
      for (let i = 0; i < 2; i += 1)
        expect(table.price({ provider: 'litellm', model, usage, at })).toStrictEqual(
          reference('litellm', model, usage, at),
        );
  });
});
