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
interface GenaiPriceResult {
  readonly total_price: number;
}
type CalcPrice = (
  usage: GenaiUsage,
  modelId: string,
  options?: { providerId?: string; timestamp?: Date },
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

export function bundledPriceTable(): PriceTable {
  return {
    name: BUNDLED_PRICES_NAME,
    price(query: PriceQuery): Price {
      if (query.model === undefined) return { status: 'unpriced', reason: 'no_model' };
      const { usage } = query;
      try {
        const result = load()(
          {
            input_tokens: totalInput(usage),
            cache_read_tokens: usage.cacheRead,
            cache_write_tokens: usage.cacheWrite,
            output_tokens: usage.output,
            // Part of the output; priced apart only where the table has a reasoning price.
            ...(usage.reasoning > 0 ? { output_reasoning_tokens: usage.reasoning } : {}),
          },
          query.model,
          {
            ...(query.provider === undefined ? {} : { providerId: query.provider }),
            timestamp: query.at,
          },
        );
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
