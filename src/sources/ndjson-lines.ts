import type { Readable } from 'node:stream';

/** One line of an NDJSON input. */
export type InputLine =
  | { readonly ok: true; readonly lineNumber: number; readonly text: string }
  | {
      readonly ok: false;
      readonly lineNumber: number;
      readonly reason: 'line_too_long' | 'invalid_utf8';
      readonly message: string;
    };

/** The default longest line accepted, in bytes. */
export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;

const NEWLINE = 0x0a;
const CR = 0x0d;

/**
 * Whether to decode and yield a line, asked of its bytes (without its newline) before they are
 * decoded, or of undefined for a line too long to hold. A line not kept is counted, not yielded.
 */
export type KeepLine = (bytes: Buffer | undefined) => boolean;

/**
 * Splits a byte stream into lines (LF or CRLF; the last line may lack its newline). A line longer
 * than `maxLineBytes` is skipped without being held in memory and reported; so is invalid UTF-8.
 * Empty lines are skipped but counted; so are lines `keep` turns down (another reader's share).
 */
export async function* readLines(
  stream: Readable | AsyncIterable<Uint8Array>,
  maxLineBytes = DEFAULT_MAX_LINE_BYTES,
  keep?: KeepLine,
): AsyncGenerator<InputLine> {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  let parts: Buffer[] = [];
  let size = 0;
  let oversize = false;
  let lineNumber = 0;

  const finishLine = (): InputLine | undefined => {
    lineNumber += 1;
    const wasOversize = oversize;
    const bytes = parts.length === 1 ? parts[0]! : Buffer.concat(parts, size);
    parts = [];
    size = 0;
    oversize = false;
    if (wasOversize) {
      if (keep !== undefined && !keep(undefined)) return undefined;
      return {
        ok: false,
        lineNumber,
        reason: 'line_too_long',
        message: `line longer than ${maxLineBytes} bytes`,
      };
    }
    const end =
      bytes.length > 0 && bytes[bytes.length - 1] === CR ? bytes.length - 1 : bytes.length;
    if (end === 0) return undefined;
    const line = end === bytes.length ? bytes : bytes.subarray(0, end);
    if (keep !== undefined && !keep(line)) return undefined;
    try {
      const text = decoder.decode(line);
      return { ok: true, lineNumber, text };
    } catch {
      return { ok: false, lineNumber, reason: 'invalid_utf8', message: 'line is not valid UTF-8' };
    }
  };

  const append = (chunk: Buffer): void => {
    if (oversize) return;
    if (size + chunk.length > maxLineBytes + 1) {
      oversize = true;
      parts = [];
      size = 0;
      return;
    }
    parts.push(chunk);
    size += chunk.length;
  };

  for await (const raw of stream) {
    const chunk: Buffer = Buffer.isBuffer(raw) ? raw : Buffer.from(raw as Uint8Array);
    let start = 0;
    let index = chunk.indexOf(NEWLINE, start);
    while (index !== -1) {
      append(chunk.subarray(start, index));
      const line = finishLine();
      if (line !== undefined) yield line;
      start = index + 1;
      index = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length) append(Buffer.from(chunk.subarray(start)));
  }
  if (size > 0 || oversize) {
    const line = finishLine();
    if (line !== undefined) yield line;
  }
}
