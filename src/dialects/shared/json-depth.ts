/** The default of `maxJsonDepth`. */
export const DEFAULT_MAX_JSON_DEPTH = 64;

/**
 * Whether JSON text nests objects and arrays deeper than `max` levels, decided by one pass over
 * the characters (brackets inside strings do not count), before anything is parsed.
 */
export function jsonDeeperThan(text: string, max: number): boolean {
  if (text.length <= max || openersAtMost(text, max)) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i += 1; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      depth += 1;
      if (depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth -= 1;
    }
  }
  return false;
}

/**
 * Whether the text has at most `max` opening brackets in all: then it cannot nest deeper, and
 * the character scan is not needed (a typical event line has a handful, found by `indexOf`).
 */
function openersAtMost(text: string, max: number): boolean {
  // Two loops, not one over a list of the two: this runs on every line.
  let count = 0;
  for (let at = text.indexOf('{'); at !== -1; at = text.indexOf('{', at + 1))
    if (++count > max) return false;
  for (let at = text.indexOf('['); at !== -1; at = text.indexOf('[', at + 1))
    if (++count > max) return false;
  return true;
}
