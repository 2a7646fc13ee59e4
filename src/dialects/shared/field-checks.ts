import { isRecord } from './parse-result.js';

/**
 * The accepted path of a dialect reads a payload's fields where they are, without a schema: a
 * check says whether a payload is as its schema wants it, and the conversion then reads the
 * payload itself (no copy). Only a payload the check refuses goes to the schema, which decides
 * and words the rejection. A check accepts nothing its schema rejects, and the conversion of what
 * it accepts equals the conversion of the schema's output (a differential test holds each dialect
 * to that).
 */
export type FieldCheck = (value: unknown) => boolean;

/** A string (possibly empty). */
export const isString: FieldCheck = (value) => typeof value === 'string';

/** A non-empty string. */
export const isId: FieldCheck = (value) => typeof value === 'string' && value.length > 0;

/** A non-negative safe integer. */
export const isCount: FieldCheck = (value) =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/** Absent, null, or as `check` wants it (a schema's `nullish`). */
export const nullish =
  (check: FieldCheck): FieldCheck =>
  (value) =>
    value === undefined || value === null || check(value);

/**
 * An object (not an array, not null) whose `fields` each pass their check and which has each of
 * the `present` keys, whatever their value (a schema's `unknown()`, which wants the key); other
 * keys are free.
 */
export function objectOf(
  fields: Readonly<Record<string, FieldCheck>>,
  present: readonly string[] = [],
): FieldCheck {
  const keys = Object.keys(fields);
  const checks = keys.map((key) => fields[key]!);
  return (value) => {
    if (!isRecord(value)) return false;
    for (let i = 0; i < keys.length; i += 1) if (!checks[i]!(value[keys[i]!])) return false;
    for (const key of present) if (!Object.hasOwn(value, key)) return false;
    return true;
  };
}
