import { ERROR_TYPE_OTHER } from '../semconv.js';

const CLASSES: readonly [RegExp, string][] = [
  [/doom.?loop/i, 'doom_loop'],
  [/compaction|context (?:window |length )?(?:overflow|exceeded)/i, 'compaction'],
  [/max(?:imum)? (?:number of )?(?:turns|iterations)/i, 'max_iterations'],
  [
    /provider|rate.?limit|\b429\b|\bapi error|\b5\d\d\b|overloaded|server error|invalid.?request|http error|connection (?:reset|refused|closed)/i,
    'provider',
  ],
  [/timed? ?out|deadline/i, 'timeout'],
  [/\btool\b/i, 'tool'],
  [/cancel/i, 'cancelled'],
];

/**
 * A low-cardinality `error.type` for a failed run, from what the run saw (a doom loop) and the
 * error text; never the text itself.
 */
export function toRunErrorType(errorText: string, sawDoomLoop: boolean): string {
  if (sawDoomLoop) return 'doom_loop';
  for (const [pattern, type] of CLASSES) if (pattern.test(errorText)) return type;
  return ERROR_TYPE_OTHER;
}
