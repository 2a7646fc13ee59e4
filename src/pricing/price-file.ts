// A user's own prices (self-hosted models, negotiated rates), asked before the bundled table.
// JSON, prices in US dollars per million tokens:
//   { "name": "acme-2026-11",
//     "models": [ { "provider": "vllm", "model": "llama-3.1-70b",
//                   "input_mtok": 0.2, "output_mtok": 0.6, "cache_read_mtok": 0.05,
//                   "cache_write_mtok": 0.25, "reasoning_mtok": 0.6 } ] }
// `provider` is optional (any provider); `model` is a name or "*" (every model of the provider).
// The first entry that matches prices the call. Cache reads and writes default to the input
// price, reasoning to the output price.
import { createHash } from 'node:crypto';
import type { Price, PriceQuery, PriceTable } from './price-table.js';
import { tokenClasses } from './token-classes.js';

/** A price file that cannot be used, with the field at fault. */
export class PriceFileError extends Error {
  override readonly name = 'PriceFileError';
}

export interface ModelPriceEntry {
  readonly provider?: string;
  readonly model: string;
  readonly input_mtok: number;
  readonly output_mtok: number;
  readonly cache_read_mtok?: number;
  readonly cache_write_mtok?: number;
  readonly reasoning_mtok?: number;
}

/** The parsed file (also what a library user may pass instead of a path). */
export interface PriceList {
  readonly name?: string;
  readonly models: readonly ModelPriceEntry[];
}

const PRICE_FIELDS = [
  'input_mtok',
  'output_mtok',
  'cache_read_mtok',
  'cache_write_mtok',
  'reasoning_mtok',
] as const;
const REQUIRED_PRICES = new Set(['input_mtok', 'output_mtok']);
const ENTRY_FIELDS = new Set(['provider', 'model', ...PRICE_FIELDS]);

/** Checks a parsed price file; `where` names it in errors. Throws `PriceFileError`. */
export function checkPriceList(value: unknown, where: string): PriceList {
  const fail = (path: string, problem: string): never => {
    throw new PriceFileError(`${where}: ${path}: ${problem}`);
  };
  if (!isObject(value)) return fail('(top level)', 'expected an object with "models"');
  for (const key of Object.keys(value))
    if (key !== 'name' && key !== 'models') fail(key, 'unknown field (expected name, models)');
  const name = value['name'];
  if (name !== undefined && (typeof name !== 'string' || name.trim() === ''))
    fail('name', 'expected a non-empty string');
  const models = value['models'];
  if (!Array.isArray(models)) return fail('models', 'expected an array');
  const checked = models.map((entry: unknown, i): ModelPriceEntry => {
    const at = `models[${i}]`;
    if (!isObject(entry)) return fail(at, 'expected an object');
    for (const key of Object.keys(entry))
      if (!ENTRY_FIELDS.has(key)) fail(`${at}.${key}`, 'unknown field');
    const model = entry['model'];
    if (typeof model !== 'string' || model === '')
      fail(`${at}.model`, 'expected a model name or "*"');
    const provider = entry['provider'];
    if (provider !== undefined && (typeof provider !== 'string' || provider === ''))
      fail(`${at}.provider`, 'expected a provider name');
    for (const field of PRICE_FIELDS) {
      const price = entry[field];
      if (price === undefined) {
        if (REQUIRED_PRICES.has(field)) fail(`${at}.${field}`, 'missing');
        continue;
      }
      if (typeof price !== 'number' || !Number.isFinite(price) || price < 0)
        fail(`${at}.${field}`, `expected a non-negative number of dollars per million tokens`);
    }
    return entry as unknown as ModelPriceEntry;
  });
  return name === undefined ? { models: checked } : { name: name as string, models: checked };
}

/** A table over a checked price list; `digestOf` names an unnamed list by its content. */
export function priceListTable(list: PriceList): PriceTable {
  const name = `file ${list.name ?? digestOf(list)}`;
  return {
    name,
    price(query: PriceQuery): Price {
      if (query.model === undefined) return { status: 'unpriced', reason: 'no_model' };
      const entry = list.models.find(
        (e) =>
          (e.model === '*' || e.model === query.model) &&
          (e.provider === undefined || e.provider === query.provider),
      );
      if (entry === undefined) return { status: 'unpriced', reason: 'unknown_model' };
      const tokens = tokenClasses(query.usage);
      const perMillion =
        tokens.input * entry.input_mtok +
        tokens.cache_read * (entry.cache_read_mtok ?? entry.input_mtok) +
        tokens.cache_write * (entry.cache_write_mtok ?? entry.input_mtok) +
        tokens.output * entry.output_mtok +
        tokens.reasoning * (entry.reasoning_mtok ?? entry.output_mtok);
      return { status: 'priced', usd: perMillion / 1e6, table: name };
    },
  };
}

function digestOf(list: PriceList): string {
  return `sha256:${createHash('sha256').update(JSON.stringify(list)).digest('hex').slice(0, 12)}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
