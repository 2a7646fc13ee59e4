import type { Scrubber } from './scrub.js';
import { scrubValue } from './scrub-value.js';

/**
 * Prepares captured content for an attribute: scrubbed value by value (see scrub-value.ts), then
 * serialized when it is not text and cut to at most `maxBytes` UTF-8 bytes (never inside a
 * character) with a marker saying so. Scrubbing before serializing sees strings as they are: a
 * secret after a newline is not hidden behind a `\n`.
 */
export function toContentAttribute(value: unknown, maxBytes: number, scrub: Scrubber): string {
  const text = typeof value === 'string' ? scrub(value) : safeStringify(scrubValue(value, scrub));
  return truncateUtf8(text, maxBytes);
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
