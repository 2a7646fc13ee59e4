import { behest } from './behest.js';
import type { Dialect, DialectName, ParseResult } from './parse-result.js';

/** Dialects that can be named on input. `auto` decides per line from its shape. */
export type InputDialect = 'auto' | Exclude<DialectName, 'native'>;

export const INPUT_DIALECTS: readonly InputDialect[] = ['auto', 'behest'];

const DIALECTS: readonly Dialect[] = [behest];

export interface LineResult {
  readonly dialect: DialectName | 'unknown';
  readonly result: ParseResult;
}

/** Parses one line of JSON text in the given dialect (or detects it). Never throws. */
export function parseLine(line: string, dialect: InputDialect): LineResult {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return {
      dialect: dialect === 'auto' ? 'unknown' : dialect,
      result: {
        ok: false,
        outcome: 'rejected',
        reason: 'invalid_json',
        message: `not JSON: ${detail}`,
      },
    };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      dialect: dialect === 'auto' ? 'unknown' : dialect,
      result: {
        ok: false,
        outcome: 'rejected',
        reason: 'not_an_object',
        message: `expected a JSON object, got ${Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`}`,
      },
    };
  }
  const chosen = dialect === 'auto' ? DIALECTS.find((d) => d.matches(value)) : byName(dialect);
  if (chosen === undefined) {
    return {
      dialect: 'unknown',
      result: {
        ok: false,
        outcome: 'rejected',
        reason: 'undetected_dialect',
        message: `no dialect recognises this line (known: ${DIALECTS.map((d) => d.name).join(', ')})`,
      },
    };
  }
  return { dialect: chosen.name, result: chosen.parse(value) };
}

function byName(name: Exclude<InputDialect, 'auto'>): Dialect | undefined {
  return DIALECTS.find((d) => d.name === name);
}
