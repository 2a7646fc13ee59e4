// A model of the bundled table (`@pydantic/genai-prices`) compiled once into a plan that prices
// the bridge's five token counts as the table's engine would, to the last bit. The engine re-checks
// the model's price keys against its unit lattice (ancestors, joins) and re-derives the leaves of
// the usage on every call; for a given price those checks always answer the same, and the leaves of
// the five counts the bridge reports are simple: uncached input is the input less the cache reads
// and writes when those are priced apart, and plain output is the output less the reasoning when
// reasoning is priced apart. Every other unit (audio, images, searches…) gets no tokens from the
// bridge and adds exactly 0. The plan performs the engine's own float operations in its order, so
// the sums are identical; `test/pricing/genai-plan.test.ts` holds every model of every provider of
// the table to that, and `bundled-prices.ts` checks each plan against the engine on its first call.
import { KNOWN_PRICE_KEYS, REACHED } from './genai-units.js';
import type { Reached } from './genai-units.js';

/** The five counts in the table's usage keys (`output_reasoning_tokens` only when positive). */
export interface GenaiTokens {
  readonly input_tokens: number;
  readonly cache_read_tokens: number;
  readonly cache_write_tokens: number;
  readonly output_tokens: number;
  readonly output_reasoning_tokens?: number;
}

/** What a plan answers: a price in US dollars, or the engine would throw (an impossible usage). */
export type PlannedPrice = number | typeof PRICE_ERROR;
export const PRICE_ERROR = Symbol('price error');

/** A model's prices at any time: undefined when the plan does not apply and the engine must. */
export interface ModelPlan {
  price(tokens: GenaiTokens, at: Date): PlannedPrice | undefined;
}

interface Tiered {
  readonly base: number;
  /** Sorted by start, as the table sorts them. */
  readonly tiers: readonly { readonly start: number; readonly price: number }[];
}

interface Term {
  readonly unit: Reached;
  readonly per: number;
  readonly direction: 0 | 1 | 2;
  readonly price: number | Tiered;
}

/** One price of a model (a `ModelPrice`), compiled. */
interface PricePlan {
  readonly terms: readonly Term[];
  /** Cache reads and writes are priced apart: uncached input is what is left. */
  readonly subtractRead: boolean;
  readonly subtractWrite: boolean;
  /** Reasoning is priced apart: plain output is what is left. */
  readonly subtractReasoning: boolean;
  /** How many token-like units the price names (the engine's tolerance scales with it). */
  readonly units: number;
}

function isPrice(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

function tieredOf(value: unknown): Tiered | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { base, tiers } = value as { base?: unknown; tiers?: unknown };
  if (!isPrice(base) || !Array.isArray(tiers)) return undefined;
  const sorted: { start: number; price: number }[] = [];
  for (const tier of tiers as unknown[]) {
    if (typeof tier !== 'object' || tier === null) return undefined;
    const { start, price } = tier as { start?: unknown; price?: unknown };
    if (typeof start !== 'number' || !Number.isSafeInteger(start) || start < 0) return undefined;
    if (!isPrice(price)) return undefined;
    sorted.push({ start, price });
  }
  sorted.sort((a, b) => a.start - b.start);
  return { base, tiers: sorted };
}

/**
 * Compiles one price; undefined for a price the plan cannot vouch for (a key it does not know, an
 * invalid value: the engine then answers, warnings and errors its own).
 */
function compilePrice(price: unknown): PricePlan | undefined {
  if (typeof price !== 'object' || price === null || Array.isArray(price)) return undefined;
  const terms: Term[] = [];
  let units = 0;
  const priced = new Set<Reached>();
  for (const [key, value] of Object.entries(price as Record<string, unknown>)) {
    if (value === undefined) continue;
    const reached = REACHED[key];
    if (reached === undefined && !KNOWN_PRICE_KEYS.has(key)) return undefined;
    const plain = isPrice(value) ? value : undefined;
    const tiered = plain === undefined ? tieredOf(value) : undefined;
    if (plain === undefined && tiered === undefined) return undefined;
    if (key !== 'requests_kcount') units += 1;
    if (reached === undefined) continue;
    priced.add(reached.unit);
    terms.push({ ...reached, price: plain ?? tiered! });
  }
  return {
    terms,
    subtractRead: priced.has('cache_read'),
    subtractWrite: priced.has('cache_write'),
    subtractReasoning: priced.has('reasoning'),
    units,
  };
}

/**
 * A leaf as the engine derives it: the count less its priced sub-units, within the engine's
 * tolerance of zero; undefined when negative (the engine throws).
 */
function leaf(count: number, less: number, units: number): number | undefined {
  const left = count - less;
  if (left >= 0) return left;
  const tolerance = Number.EPSILON * Math.max(1, Math.abs(count), Math.abs(less)) * (units + 1);
  return Math.abs(left) <= tolerance ? 0 : undefined;
}

function validCount(value: number): boolean {
  return Number.isFinite(value) && value >= 0;
}

function priceWith(plan: PricePlan, tokens: GenaiTokens): PlannedPrice | undefined {
  const input = tokens.input_tokens;
  const read = tokens.cache_read_tokens;
  const write = tokens.cache_write_tokens;
  const output = tokens.output_tokens;
  const reasoning = tokens.output_reasoning_tokens ?? 0;
  if (
    !validCount(input) ||
    !validCount(read) ||
    !validCount(write) ||
    !validCount(output) ||
    !validCount(reasoning)
  )
    return undefined;
  // The engine adds the sub-units' leaves in its lattice order: cache reads before writes.
  const subtracted = plan.subtractRead
    ? plan.subtractWrite
      ? read + write
      : read
    : plan.subtractWrite
      ? write
      : 0;
  const uncached = leaf(input, subtracted, plan.units);
  const plainOutput = leaf(output, plan.subtractReasoning ? reasoning : 0, plan.units);
  if (uncached === undefined || plainOutput === undefined) return PRICE_ERROR;
  let inputUsd = 0;
  let outputUsd = 0;
  let otherUsd = 0;
  for (const term of plan.terms) {
    const count =
      term.unit === 'input'
        ? uncached
        : term.unit === 'cache_read'
          ? read
          : term.unit === 'cache_write'
            ? write
            : term.unit === 'output'
              ? plainOutput
              : term.unit === 'reasoning'
                ? reasoning
                : 1;
    let usd: number;
    if (typeof term.price === 'number') usd = (term.price * count) / term.per;
    else if (count <= 0) usd = 0;
    else {
      // A tier is chosen by the call's whole input, as the engine does.
      let rate = term.price.base;
      for (const tier of term.price.tiers) if (input > tier.start) rate = tier.price;
      usd = (((rate * count) / 1e6) * 1e6) / term.per;
    }
    if (term.direction === 0) inputUsd += usd;
    else if (term.direction === 1) outputUsd += usd;
    else otherUsd += usd;
  }
  return inputUsd + outputUsd + otherUsd;
}

/** Seconds after midnight UTC of an `HH:MM:SS[.fff](Z|±HH:MM)` time, as the engine reads it. */
function secondsOfDay(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined;
  const m = /^(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|([+-])(\d{2}):(\d{2}))$/.exec(text);
  if (m === null) return undefined;
  const [, hh, mm, ss, fraction = '', zone, sign, oh = '00', om = '00'] = m;
  const hours = Number(hh);
  const minutes = Number(mm);
  const seconds = Number(ss);
  if (hours > 23 || minutes > 59 || seconds > 59 || oh > '23' || om > '59') return undefined;
  const offset = (Number(oh) * 60 + Number(om)) * 60;
  const local = hours * 3600 + minutes * 60 + seconds + +`0.${fraction}`;
  const shift = zone === 'Z' ? 0 : sign === '+' ? offset : -offset;
  return (local - shift + 86400) % 86400;
}

type Condition =
  | { readonly kind: 'always' }
  | { readonly kind: 'from'; readonly ms: number }
  | { readonly kind: 'daily'; readonly start: number; readonly end: number };

function conditionOf(constraint: unknown): Condition | undefined {
  if (constraint === undefined) return { kind: 'always' };
  if (typeof constraint !== 'object' || constraint === null) return undefined;
  const c = constraint as {
    type?: unknown;
    start_date?: unknown;
    start_time?: unknown;
    end_time?: unknown;
  };
  if (c.type === 'start_date' && typeof c.start_date === 'string')
    return { kind: 'from', ms: new Date(c.start_date).getTime() };
  if (c.type === 'time_of_date') {
    const start = secondsOfDay(c.start_time);
    const end = secondsOfDay(c.end_time);
    if (start === undefined || end === undefined) return undefined;
    return { kind: 'daily', start, end };
  }
  return undefined;
}

function holds(condition: Condition, at: Date, ms: number): boolean {
  if (condition.kind === 'always') return true;
  if (condition.kind === 'from') return ms >= condition.ms;
  const second =
    at.getUTCHours() * 3600 +
    at.getUTCMinutes() * 60 +
    at.getUTCSeconds() +
    at.getUTCMilliseconds() / 1e3;
  return condition.end < condition.start
    ? second >= condition.start || second < condition.end
    : second >= condition.start && second < condition.end;
}

/**
 * Whether the engine, asked to price `tokens` against `price` alone, answers `planned` (the same
 * number to the bit, or an error for `PRICE_ERROR`).
 */
export type PriceCheck = (price: object, tokens: GenaiTokens, planned: PlannedPrice) => boolean;

/** Usages each price is checked on: every counted unit, past every tier, and next to nothing. */
const PROBES: readonly GenaiTokens[] = [
  {
    input_tokens: 1_000_003,
    cache_read_tokens: 200_001,
    cache_write_tokens: 100_003,
    output_tokens: 500_007,
    output_reasoning_tokens: 100_001,
  },
  { input_tokens: 300_000_001, cache_read_tokens: 0, cache_write_tokens: 0, output_tokens: 1 },
  { input_tokens: 7, cache_read_tokens: 0, cache_write_tokens: 0, output_tokens: 0 },
];

/** A price compiled, and checked against the engine on the probes (its own checks of the price
 * keys included: a price the engine refuses is left to the engine). */
function checkedPrice(price: unknown, check: PriceCheck): PricePlan | undefined {
  const plan = compilePrice(price);
  if (plan === undefined) return undefined;
  for (const probe of PROBES)
    if (!check(price as object, probe, priceWith(plan, probe) ?? PRICE_ERROR)) return undefined;
  return plan;
}

/**
 * The plan of a model of the table (its `prices`: one price, or prices under date and time-of-day
 * conditions, the last that holds winning); undefined when any of its prices cannot be planned.
 */
export function compileModelPlan(prices: unknown, check: PriceCheck): ModelPlan | undefined {
  if (!Array.isArray(prices)) {
    const plan = checkedPrice(prices, check);
    if (plan === undefined) return undefined;
    return { price: (tokens) => priceWith(plan, tokens) };
  }
  if (prices.length === 0) return undefined;
  const options: { condition: Condition; plan: PricePlan }[] = [];
  for (const option of prices as unknown[]) {
    if (typeof option !== 'object' || option === null) return undefined;
    const { constraint, prices: price } = option as { constraint?: unknown; prices?: unknown };
    const condition = conditionOf(constraint);
    if (condition === undefined) return undefined;
    const plan = checkedPrice(price, check);
    if (plan === undefined) return undefined;
    options.push({ condition, plan });
  }
  return {
    price(tokens, at) {
      const ms = at.getTime();
      if (Number.isNaN(ms)) return undefined;
      for (let i = options.length - 1; i >= 0; i -= 1) {
        const option = options[i]!;
        if (holds(option.condition, at, ms)) return priceWith(option.plan, tokens);
      }
      return priceWith(options[0]!.plan, tokens);
    },
  };
}
