// What a price is to the bridge: a model call's tokens in, US dollars or an explicit "unpriced"
// out. Unpriced is never $0: a model nobody priced says so, and its tokens are counted apart.

/** Tokens of one model call (or of usage reported after its call), as the runtime reported them. */
export interface UsageTokens {
  /** Input tokens, cached ones included (the conventions' definition; see `tokenClasses`). */
  readonly input: number;
  readonly output: number;
  /** Input tokens read from the provider's cache (part of `input`). */
  readonly cacheRead: number;
  /** Input tokens written to the provider's cache (part of `input`). */
  readonly cacheWrite: number;
  /** Output tokens spent on reasoning (part of `output`). */
  readonly reasoning: number;
}

/** What to price: who served the call, which model, its tokens, and when (prices change). */
export interface PriceQuery {
  readonly provider: string | undefined;
  readonly model: string | undefined;
  readonly usage: UsageTokens;
  readonly at: Date;
}

/** Why a call has no price. */
export type UnpricedReason = 'no_model' | 'unknown_model' | 'price_error';

export type Price =
  | {
      readonly status: 'priced';
      /** US dollars. */
      readonly usd: number;
      /** The table that priced it, with its version: `genai-prices 0.1.8`, `file acme-2026-11`. */
      readonly table: string;
    }
  | { readonly status: 'unpriced'; readonly reason: UnpricedReason };

/** A source of prices. `price` never throws. */
export interface PriceTable {
  /** The table's name and version, as on the spans it priced. */
  readonly name: string;
  price(query: PriceQuery): Price;
}

/**
 * The cost counter adds multiples of 2^-30 US dollars (about 0.93 nano-dollars): sums of such
 * numbers are exact in floating point up to $8 million, so the counter reads the same whatever
 * order runs end in (float addition is not associative otherwise). Spans keep the exact price; a
 * run adds its calls in their own order, which its events fix.
 */
export const COST_QUANTUM = 2 ** -30;

/** A cost rounded to the quantum (see `COST_QUANTUM`). */
export function quantizeUsd(usd: number): number {
  return Math.round(usd / COST_QUANTUM) * COST_QUANTUM;
}

const UNPRICED_NO_MODEL: Price = Object.freeze({ status: 'unpriced', reason: 'no_model' });

/** Tables asked in order; the first that prices the call wins (a user's file before the bundled one). */
export function chainPriceTables(tables: readonly PriceTable[]): PriceTable {
  if (tables.length === 1) return tables[0]!;
  return {
    name: tables.map((t) => t.name).join(', '),
    price(query) {
      if (query.model === undefined) return UNPRICED_NO_MODEL;
      let last: Price = { status: 'unpriced', reason: 'unknown_model' };
      for (const table of tables) {
        const price = table.price(query);
        if (price.status === 'priced') return price;
        if (last.status === 'unpriced' && last.reason !== 'price_error') last = price;
      }
      return last;
    },
  };
}
