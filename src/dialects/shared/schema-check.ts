import type * as z from 'zod';
import { isString } from './field-checks.js';
import type { FieldCheck } from './field-checks.js';
import { isRecord } from './parse-result.js';

// A dialect's schemas read on the accepted path without running them. Where a schema is built of
// parts whose output is the input itself (loose objects, strings, booleans, unknown values, finite
// numbers with at most the safe-integer and non-negative checks, optional and nullable parts,
// arrays and unions of these), "the schema accepts this payload" is a plain check of its fields,
// and what it would give is the payload itself, its keys in another order at most. The check is
// worked out once from the schema's definition, so it cannot drift from it; a schema with a part
// not listed here gets no check and decides every payload itself. The schema still decides and
// words every payload the check refuses.

/** A check that accepts exactly what `schema` accepts; undefined where the schema has other parts. */
export function checkOf(schema: z.ZodType): FieldCheck | undefined {
  const def = schema._zod.def as Definition;
  switch (def.type) {
    case 'string':
      return plain(def) ? isString : undefined;
    case 'boolean':
      return plain(def) ? isBoolean : undefined;
    case 'unknown':
      return plain(def) ? anything : undefined;
    case 'number':
      return numberCheck(def);
    case 'optional': {
      const inner = plain(def) ? checkOf(def.innerType!) : undefined;
      return inner && ((value) => value === undefined || inner(value));
    }
    case 'nullable': {
      const inner = plain(def) ? checkOf(def.innerType!) : undefined;
      return inner && ((value) => value === null || inner(value));
    }
    case 'array': {
      const element = plain(def) ? checkOf(def.element!) : undefined;
      return element && ((value) => Array.isArray(value) && value.every((v) => element(v)));
    }
    case 'union': {
      const options = plain(def) ? def.options!.map(checkOf) : [undefined];
      if (options.some((o) => o === undefined)) return undefined;
      const checks = options as FieldCheck[];
      return (value) => checks.some((check) => check(value));
    }
    case 'object':
      return objectCheck(def);
    default:
      return undefined;
  }
}

/** Checks of each of `schemas`, by name; the names in `schemaOnly` and those without one left out. */
export function checksOf<S extends Readonly<Record<string, z.ZodType>>>(
  schemas: S,
  schemaOnly: readonly (keyof S)[] = [],
): Partial<Record<keyof S, FieldCheck>> {
  const checks: Partial<Record<keyof S, FieldCheck>> = {};
  for (const name of Object.keys(schemas) as (keyof S & string)[]) {
    const check = schemaOnly.includes(name) ? undefined : checkOf(schemas[name]!);
    if (check !== undefined) checks[name] = check;
  }
  return checks;
}

/** What of a zod definition the checks read. */
interface Definition {
  readonly type: string;
  readonly checks?: readonly { readonly _zod: { readonly def: CheckDefinition } }[];
  readonly innerType?: z.ZodType;
  readonly element?: z.ZodType;
  readonly options?: readonly z.ZodType[];
  readonly shape?: Readonly<Record<string, z.ZodType>>;
  readonly catchall?: z.ZodType;
}

interface CheckDefinition {
  readonly check: string;
  readonly format?: string;
  readonly value?: unknown;
  readonly inclusive?: boolean;
}

const isBoolean: FieldCheck = (value) => typeof value === 'boolean';
const anything: FieldCheck = () => true;

/** A definition without checks of its own (refinements, lengths, formats). */
const plain = (def: Definition): boolean => (def.checks ?? []).length === 0;

/** A number: finite; with `int()` a safe integer; with `nonnegative()` at least 0. */
function numberCheck(def: Definition): FieldCheck | undefined {
  let integer = false;
  let nonNegative = false;
  for (const { _zod } of def.checks ?? []) {
    const check = _zod.def;
    if (check.check === 'number_format' && check.format === 'safeint') integer = true;
    else if (check.check === 'greater_than' && check.value === 0 && check.inclusive === true)
      nonNegative = true;
    else return undefined;
  }
  return (value) =>
    typeof value === 'number' &&
    (integer ? Number.isSafeInteger(value) : Number.isFinite(value)) &&
    (!nonNegative || value >= 0);
}

/**
 * An object with its shape's fields: a field that is not optional wants its key (even where its
 * value may be anything); the other keys are free (a loose object's), or each as the catch-all
 * wants it. A plain object, which drops other keys from its output, gets no check.
 */
function objectCheck(def: Definition): FieldCheck | undefined {
  if (!plain(def) || def.catchall === undefined) return undefined;
  const keys = Object.keys(def.shape!);
  const fields: FieldCheck[] = [];
  const required: boolean[] = [];
  for (const key of keys) {
    const field = def.shape![key]!;
    const check = checkOf(field);
    if (check === undefined) return undefined;
    fields.push(check);
    required.push((field._zod.def as Definition).type !== 'optional');
  }
  const catchall = checkOf(def.catchall);
  if (catchall === undefined) return undefined;
  const others = catchall === anything ? undefined : catchall;
  const known = new Set(keys);
  return (value) => {
    if (!isRecord(value)) return false;
    for (let i = 0; i < keys.length; i += 1) {
      const key = keys[i]!;
      if (required[i] && !Object.hasOwn(value, key)) return false;
      if (!fields[i]!(value[key])) return false;
    }
    if (others !== undefined)
      for (const key of Object.keys(value))
        if (!known.has(key) && !others(value[key])) return false;
    return true;
  };
}

/**
 * `value` as `schema` gives it: the value itself where `check` (the schema's, from `checkOf`)
 * accepts it, else what the schema makes of it (its output, or its issues).
 */
export function readWith<T>(
  schema: z.ZodType<T>,
  check: FieldCheck | undefined,
  value: unknown,
): z.ZodSafeParseResult<T> {
  return check !== undefined && check(value)
    ? { success: true, data: value as T }
    : schema.safeParse(value);
}
