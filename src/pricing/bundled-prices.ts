// The bundled price table: `@pydantic/genai-prices` (MIT), which ships its data in the package,
// knows each provider's rules for cached reads and writes, tiers and dated price changes, and
// returns nothing for a model it does not know. It is loaded on first use (about 70 ms, once),
// so that a sink with pricing off, or one that never prices, does not pay for it.
import { createRequire } from 'node:module';
import type { Price, PriceQuery, PriceTable } from './price-table.js';
import { totalInput } from './token-classes.js';
import { PRICE_ERROR, compileModelPlan } from './genai-plan.js';
import type { GenaiTokens, ModelPlan, PriceCheck } from './genai-plan.js';

/** The package version the bridge is built and tested with (checked by a test against the installed one). */
export const BUNDLED_PRICES_VERSION = '0.1.8';
export const BUNDLED_PRICES_NAME = `genai-prices ${BUNDLED_PRICES_VERSION}`;

type GenaiUsage = Record<string, number | undefined>;
/** The table's provider record (with its models and their dated prices), opaque here. */
interface GenaiProvider {
  readonly id: string;
  readonly models: readonly object[];
  readonly fallback_model_providers?: readonly string[];
}
interface GenaiModel {
  readonly prices: unknown;
}
interface GenaiPriceResult {
  readonly total_price: number;
  readonly provider: GenaiProvider;
  readonly model: GenaiModel;
}
type CalcPrice = (
  usage: GenaiUsage,
  modelId: string,
  options?: { providerId?: string; provider?: GenaiProvider; timestamp?: Date },
) => GenaiPriceResult | null;

let calcPrice: CalcPrice | undefined;

function load(): CalcPrice {
  // The package's CommonJS build, required synchronously: a price is needed inside `handle()`.
  calcPrice ??= (
    createRequire(import.meta.url)('@pydantic/genai-prices') as { calcPrice: CalcPrice }
  ).calcPrice;
  return calcPrice;
}

function priced(usd: number): Price {
  if (!Number.isFinite(usd) || usd < 0) return { status: 'unpriced', reason: 'price_error' };
  return { status: 'priced', usd, table: BUNDLED_PRICES_NAME };
}

/** Loads the table ahead of the first price, off the caller's path (never throws). */
export function warmBundledPrices(): void {
  setImmediate(() => {
    try {
      load();
    } catch {
      // Said when a price is asked for.
    }
  }).unref();
}

/** Distinct (provider, model) pairs remembered with what the table matched (starts over when full). */
const MATCHES_KEPT = 1024;

/** A (provider, model) pair found in the table. */
interface Match {
  /** The provider reduced to the model found. */
  readonly provider: GenaiProvider;
  /** The model's prices compiled (see `genai-plan.ts`); undefined: the table's engine prices it. */
  readonly plan: ModelPlan | undefined;
}

/** The engine's answer for `tokens` against one price of a model, found under `name`. */
function engineCheck(
  calc: CalcPrice,
  provider: GenaiProvider,
  model: GenaiModel,
  name: string,
): PriceCheck {
  return (price, tokens, planned) => {
    try {
      const result = calc(tokens as unknown as GenaiUsage, name, {
        provider: { ...provider, models: [{ ...model, prices: price }] },
        timestamp: new Date(0),
      });
      return result !== null && result.total_price === planned;
    } catch {
      return planned === PRICE_ERROR;
    }
  };
}

/**
 * The bundled table. Finding a model in it (a search through every model of the provider, and of
 * the providers it falls back to) is most of what a price costs, and depends only on the provider
 * and model names: each pair is looked up once. The model found is compiled into a plan that
 * prices the bridge's token counts exactly as the table's engine does (each of its prices checked
 * against the engine when compiled), without the engine's per-call checks of the model's price
 * keys; a model the plan cannot vouch for is priced by the engine against a provider holding just
 * that model. Dated, time-of-day and tiered prices are applied at each call's time and size.
 */
export function bundledPriceTable(): PriceTable {
  /** By `provider\0model`: what was found, or null for none. */
  const matches = new Map<string, Match | null>();
  /** Plans by model record (several names find the same model). */
  const plans = new WeakMap<GenaiModel, ModelPlan | undefined>();
  const planOf = (calc: CalcPrice, result: GenaiPriceResult, name: string) => {
    if (!plans.has(result.model))
      plans.set(
        result.model,
        compileModelPlan(
          result.model.prices,
          engineCheck(calc, result.provider, result.model, name),
        ),
      );
    return plans.get(result.model);
  };
  return {
    name: BUNDLED_PRICES_NAME,
    price(query: PriceQuery): Price {
      if (query.model === undefined) return { status: 'unpriced', reason: 'no_model' };
      const { usage } = query;
      const tokens: GenaiTokens = {
        input_tokens: totalInput(usage),
        cache_read_tokens: usage.cacheRead,
        cache_write_tokens: usage.cacheWrite,
        output_tokens: usage.output,
        // Part of the output; priced apart only where the table has a reasoning price.
        ...(usage.reasoning > 0 ? { output_reasoning_tokens: usage.reasoning } : {}),
      };
      // LiteLLM names carry their provider (`openai/gpt-4o`), which the table resolves first.
      const key =
        query.provider?.toLowerCase() === 'litellm'
          ? undefined
          : `${query.provider ?? ''}\0${query.model}`;
      try {
        const known = key === undefined ? undefined : matches.get(key);
        if (known === null) return { status: 'unpriced', reason: 'unknown_model' };
        const planned = known?.plan?.price(tokens, query.at);
        if (planned === PRICE_ERROR) return { status: 'unpriced', reason: 'price_error' };
        if (planned !== undefined) return priced(planned);
        const calc = load();
        const result = calc(tokens as unknown as GenaiUsage, query.model, {
          ...(known !== undefined
            ? { provider: known.provider }
            : query.provider === undefined
              ? {}
              : { providerId: query.provider }),
          timestamp: query.at,
        });
        if (known === undefined && key !== undefined) {
          if (matches.size >= MATCHES_KEPT) matches.clear();
          matches.set(
            key,
            result === null
              ? null
              : {
                  provider: {
                    ...result.provider,
                    models: [result.model],
                    fallback_model_providers: [],
                  },
                  plan: planOf(calc, result, query.model),
                },
          );
        }
        if (result === null) return { status: 'unpriced', reason: 'unknown_model' };
        return priced(result.total_price);
      } catch {
        return { status: 'unpriced', reason: 'price_error' };
      }
    },
  };
}
