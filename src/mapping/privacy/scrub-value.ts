// Structure before text: a parsed value (tool arguments and results, JSON found inside a string)
// is scrubbed by what it is, not by how it serializes. The whole value under a key that names a
// credential is masked, whatever its type; every key and every string goes through the text
// layers; a string that holds a JSON object or array is walked as one.
import { isCredentialKey } from './credential-key.js';

/** What a masked secret is replaced with. */
export const REDACTED = '[REDACTED]';

/** Deepest nesting walked; deeper values are masked whole (inputs are depth-limited before). */
const MAX_DEPTH = 128;
/** Longest string tried as embedded JSON. */
const MAX_EMBEDDED_JSON_CHARS = 1 << 20;

/** Scrubs a parsed value with `scrubText` for its strings and keys. */
export function scrubValue(
  value: unknown,
  scrubText: (text: string) => string,
  depth = 0,
): unknown {
  if (typeof value === 'string') return scrubString(value, scrubText, depth);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_DEPTH) return REDACTED;
  if (Array.isArray(value)) return value.map((v) => scrubValue(v, scrubText, depth + 1));
  // fromEntries defines own properties: a `__proto__` key stays a key.
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [
      scrubText(key),
      isCredentialKey(key) && v !== null && typeof v !== 'boolean'
        ? REDACTED
        : scrubValue(v, scrubText, depth + 1),
    ]),
  );
}

/** A string through the text layers, or, when it holds a JSON object or array, as structure. */
export function scrubString(text: string, scrubText: (text: string) => string, depth = 0): string {
  const embedded = embeddedJson(text);
  if (embedded === undefined) return scrubText(text);
  return JSON.stringify(scrubValue(embedded, scrubText, depth + 1));
}

/** The object or array a string holds as a whole (surrounding white space aside), if any. */
function embeddedJson(text: string): object | undefined {
  if (text.length < 2 || text.length > MAX_EMBEDDED_JSON_CHARS) return undefined;
  let start = 0;
  while (start < text.length && text.charCodeAt(start) <= 32) start += 1;
  const open = text[start];
  if (open !== '{' && open !== '[') return undefined;
  let end = text.length - 1;
  while (end > start && text.charCodeAt(end) <= 32) end -= 1;
  if (text[end] !== (open === '{' ? '}' : ']')) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}
