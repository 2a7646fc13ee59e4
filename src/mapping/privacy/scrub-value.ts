// Structure before text: a parsed value (tool arguments and results, JSON found inside a string)
// is scrubbed by what it is, not by how it serializes. The whole value under a key that names a
// credential is masked, whatever its type, and so is the `value` of an object whose `name` names
// one; every key and every string goes through the text layers; a string that holds a JSON object
// or array is walked as one.
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
  const paired = pairedValueKey(value as Readonly<Record<string, unknown>>);
  // fromEntries defines own properties: a `__proto__` key stays a key.
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [
      scrubText(key),
      (key === paired || isCredentialKey(key)) && v !== null && typeof v !== 'boolean'
        ? REDACTED
        : scrubValue(v, scrubText, depth + 1),
    ]),
  );
}

/** The fields that name what an object pairs a value with, and that hold the value. */
const NAME_FIELDS = ['name', 'Name', 'key', 'Key'] as const;
const VALUE_FIELDS = ['value', 'Value'] as const;

/**
 * The field holding a credential's value where an object pairs a name with it, as environment
 * lists and parameter stores write them: `{"name": "DB_PASSWORD", "value": …}`, `{"Key": …,
 * "Value": …}`.
 */
function pairedValueKey(object: Readonly<Record<string, unknown>>): string | undefined {
  const nameField = NAME_FIELDS.find((field) => Object.hasOwn(object, field));
  const name = nameField === undefined ? undefined : object[nameField];
  if (typeof name !== 'string' || !isCredentialKey(name)) return undefined;
  return VALUE_FIELDS.find((field) => Object.hasOwn(object, field));
}

/**
 * A string through the text layers, or, when it holds a JSON object or array, as structure; JSON
 * objects and arrays inside a longer text (`exit 1: {"password": [...]}`) are walked as structure
 * too, and the text around them goes through the text layers.
 */
export function scrubString(text: string, scrubText: (text: string) => string, depth = 0): string {
  const embedded = embeddedJson(text);
  if (embedded !== undefined) return reserialized(text, embedded, scrubText, depth);
  if (depth >= MAX_DEPTH || text.length > MAX_EMBEDDED_JSON_CHARS) return scrubText(text);
  const spans = jsonSpans(text);
  if (spans.length === 0) return scrubText(text);
  let out = '';
  let from = 0;
  for (const [start, end] of spans) {
    let value: unknown;
    try {
      value = JSON.parse(text.slice(start, end));
    } catch {
      continue;
    }
    out += scrubText(text.slice(from, start));
    out += reserialized(text.slice(start, end), value, scrubText, depth);
    from = end;
  }
  return from === 0 ? scrubText(text) : out + scrubText(text.slice(from));
}

/** The JSON text as it was when scrubbing masked nothing in it, else the scrubbed value serialized. */
function reserialized(
  text: string,
  value: unknown,
  scrubText: (text: string) => string,
  depth: number,
): string {
  const scrubbed = JSON.stringify(scrubValue(value, scrubText, depth + 1));
  return scrubbed === JSON.stringify(value) ? text : scrubbed;
}

/**
 * The outermost bracketed spans of a text (`{…}`, `[…]`, brackets inside their strings aside), in
 * one pass: each a candidate for JSON. Quotes count only inside brackets, so prose around is free.
 */
function jsonSpans(text: string): [number, number][] {
  const spans: [number, number][] = [];
  const open: number[] = [];
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i += 1; // backslash: skip the escaped character
      else if (c === 34 || c === 10) inString = false;
      continue;
    }
    if (c === 123 || c === 91) open.push(i);
    else if (c === 125 || c === 93) {
      const start = open.pop();
      if (start === undefined) continue;
      if (text.charCodeAt(start) !== (c === 125 ? 123 : 91)) {
        open.length = 0;
        continue;
      }
      if (open.length === 0) spans.push([start, i + 1]);
    } else if (c === 34 && open.length > 0) inString = true;
  }
  return spans;
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
