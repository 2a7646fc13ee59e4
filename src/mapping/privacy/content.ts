import { REDACTED } from './scrub.js';
import type { Scrubber } from './scrub.js';

/**
 * Prepares captured content for an attribute: scrubbed value by value (every string, and the whole
 * value of a key that names a credential), then serialized when it is not text and cut to at most
 * `maxBytes` UTF-8 bytes (never inside a character) with a marker saying so. Scrubbing before
 * serializing sees strings as they are: a secret after a newline is not hidden behind a `\n`.
 */
export function toContentAttribute(value: unknown, maxBytes: number, scrub: Scrubber): string {
  const text = typeof value === 'string' ? scrub(value) : safeStringify(scrubValue(value, scrub));
  return truncateUtf8(text, maxBytes);
}

/** A key that names a credential: `password`, `api_key`, `DB_PASSWORD`, `Authorization`, … */
const CREDENTIAL_KEY =
  /^(?:[A-Za-z0-9]{0,64}[_.-]){0,4}(?:password|passwd|pwd|pass|secret|client[_-]?secret|token|access[_-]?token|refresh[_-]?token|auth[_-]?token|api[_-]?key|apikey|private[_-]?key|secret[_-]?key|access[_-]?key|account[_-]?key|credentials?|authorization|cookie|set[_-]cookie|connection[_-]?string)$/i;

function scrubValue(value: unknown, scrub: Scrubber): unknown {
  if (typeof value === 'string') return scrub(value);
  if (Array.isArray(value)) return value.map((v) => scrubValue(v, scrub));
  if (typeof value !== 'object' || value === null) return value;
  // fromEntries defines own properties: a `__proto__` key stays a key.
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [
      key,
      CREDENTIAL_KEY.test(key) && (typeof v === 'string' || typeof v === 'number')
        ? REDACTED
        : scrubValue(v, scrub),
    ]),
  );
}

const MARKER = '…[truncated]';

export function truncateUtf8(text: string, maxBytes: number): string {
  if (text.length * 3 <= maxBytes) return text;
  const bytes = Buffer.byteLength(text);
  if (bytes <= maxBytes) return text;
  const budget = Math.max(0, maxBytes - Buffer.byteLength(MARKER));
  let cut = Buffer.from(text).subarray(0, budget).toString('utf8');
  if (cut.endsWith('\uFFFD')) cut = cut.slice(0, -1);
  return `${cut}${MARKER}`;
}

/** Cuts a text to `max` characters (never between the halves of a surrogate pair), marked. */
export function truncateChars(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, max);
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return `${cut}${MARKER}`;
}

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
