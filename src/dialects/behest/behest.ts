import { behestPlainRunIdIn, behestRunIdOf } from './behest-run-id.js';
import { BEHEST_VARIANTS, VARIANTS } from './behest-variants.js';
import type { Variant } from './behest-variants.js';
import type { Dialect, ParseResult } from '../shared/parse-result.js';
import { ignoredVariant, isRecord, rejectedSchema } from '../shared/parse-result.js';

// behest 0.2.2 serde JSON: externally tagged `{"Variant":{...}}` (variants in behest-variants.ts,
// schemas in behest-schemas.ts).

export { BEHEST_VARIANTS };

const PASCAL_CASE = /^[A-Z][A-Za-z0-9]*$/;

/** The single key of an externally tagged value, or undefined. */
export function singleKey(value: unknown): string | undefined {
  if (!isRecord(value)) return undefined;
  const keys = Object.keys(value);
  return keys.length === 1 ? keys[0] : undefined;
}

/** The variants by name: one lookup a line, where an object's own keys took two. */
const VARIANT_BY_NAME: ReadonlyMap<string, Variant> = new Map(Object.entries(VARIANTS));

/** A behest payload of variant `name`; `schemaOnly` skips the field checks (for tests). */
export function parseBehestPayload(
  name: string,
  payload: unknown,
  schemaOnly = false,
): ParseResult {
  const entry = VARIANT_BY_NAME.get(name);
  if (entry === undefined) return ignoredVariant('behest', name);
  return entry.parse(name, payload, schemaOnly);
}

function parseBehest(value: unknown): ParseResult {
  const key = singleKey(value);
  if (key === undefined) {
    return {
      ok: false,
      outcome: 'rejected',
      reason: 'not_an_object',
      message: 'expected an object with exactly one variant key, such as {"RunStarted":{…}}',
    };
  }
  const payload = (value as Record<string, unknown>)[key];
  const entry = VARIANT_BY_NAME.get(key);
  if (entry !== undefined) return entry.parse(key, payload);
  // A known variant needs no look at its key's shape.
  if (!PASCAL_CASE.test(key)) {
    return rejectedSchema(
      key,
      `expected a PascalCase behest variant key, got "${key.slice(0, 40)}"`,
    );
  }
  return ignoredVariant('behest', key);
}

const STATELESS = { decode: parseBehest };

/** behest 0.2.2: externally tagged serde JSON, one PascalCase variant key per line, with run ids and times. */
export const behest: Dialect = {
  name: 'behest',
  classify(value) {
    const key = singleKey(value);
    if (key === undefined || !PASCAL_CASE.test(key)) return 'no';
    const payload = (value as Record<string, unknown>)[key];
    if (!isRecord(payload)) return 'no';
    if (typeof payload['run_id'] === 'string') return 'yes';
    return VARIANT_BY_NAME.has(key) ? 'maybe' : 'no';
  },
  createDecoder: () => STATELESS,
  runIdOf: behestRunIdOf,
  plainRunIdIn: behestPlainRunIdIn,
};
