// The bundled price table: `@pydantic/genai-prices` (MIT), which ships its data in the package,
// knows each provider's rules for cached reads and writes, tiers and dated price changes, and
// returns nothing for a model it does not know. It is loaded on first use (about 70 ms, once),
// so that a sink with pricing off, or one that never prices, does not pay for it.
import { createRequire } from 'node:module';
import type { Price, PriceQuery, PriceTable } from './price-table.js';
import { totalInput } from './token-classes.js';

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
interface GenaiPriceResult {
  readonly total_price: number;
  readonly provider: GenaiProvider;
  readonly model: object;
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

/**
 * The bundled table. Finding a model in it (a search through every model of the provider, and of
 * the providers it falls back to) is most of what a price costs, and depends only on the provider
 * and model names: each pair is looked up once, and later calls are priced by the table itself
 * against a provider holding just the model it found. Its dated and tiered prices are still the
 * table's own, applied at each call's time.
 */
export function bundledPriceTable(): PriceTable {
  /** By `provider\0model`: the provider reduced to the model found, or null for none. */
  const matches = new Map<string, GenaiProvider | null>();
  return {
    name: BUNDLED_PRICES_NAME,
    price(query: PriceQuery): Price {
      if (query.model === undefined) return { status: 'unpriced', reason: 'no_model' };
      const { usage } = query;
      const tokens = {
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
        const result = load()(tokens, query.model, {
          ...(known !== undefined
            ? { provider: known }
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
              : { ...result.provider, models: [result.model], fallback_model_providers: [] },
          );
        }
        if (result === null) return { status: 'unpriced', reason: 'unknown_model' };
        if (!Number.isFinite(result.total_price) || result.total_price < 0)
          return { status: 'unpriced', reason: 'price_error' };
        return { status: 'priced', usd: result.total_price, table: BUNDLED_PRICES_NAME };
      } catch {
        return { status: 'unpriced', reason: 'price_error' };
      }
    },
  };
}
