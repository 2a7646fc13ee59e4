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
 * `keep` is asked of each line only after the line before it was taken.
 */
export async function* readLines(
  stream: Readable | AsyncIterable<Uint8Array>,
  maxLineBytes = DEFAULT_MAX_LINE_BYTES,
  keep?: KeepLine,
): AsyncGenerator<InputLine> {
  const lines = new LineSplitter(maxLineBytes, keep);
  for await (const raw of stream) {
    lines.feed(raw as Uint8Array);
    for (let line = lines.next(); line !== NEED_MORE; line = lines.next())
      if (line !== undefined) yield line;
  }
  const last = lines.end();
  if (last !== undefined) yield last;
}

/**
 * `readLines` without `keep`, the lines each chunk of the stream completes given together: a
 * reader loops over them without waiting on a promise per line. No batch is empty.
 */
export async function* readLineBatches(
  stream: Readable | AsyncIterable<Uint8Array>,
  maxLineBytes = DEFAULT_MAX_LINE_BYTES,
): AsyncGenerator<InputLine[]> {
  const lines = new LineSplitter(maxLineBytes, undefined);
  for await (const raw of stream) {
    lines.feed(raw as Uint8Array);
    const batch: InputLine[] = [];
    for (let line = lines.next(); line !== NEED_MORE; line = lines.next())
      if (line !== undefined) batch.push(line);
    if (batch.length > 0) yield batch;
  }
  const last = lines.end();
  if (last !== undefined) yield [last];
}

/**
 * `readLines` given to `each` in a loop over each chunk, without a promise per line: `keep` is
 * asked of each line after `each` has had the line before it. Where `each` answers a promise, the
 * next line waits for it.
 */
export async function eachLine(
  stream: Readable | AsyncIterable<Uint8Array>,
  maxLineBytes: number,
  keep: KeepLine | undefined,
  each: (line: InputLine) => Promise<void> | undefined,
): Promise<void> {
  const lines = new LineSplitter(maxLineBytes, keep);
  for await (const raw of stream) {
    lines.feed(raw as Uint8Array);
    for (let line = lines.next(); line !== NEED_MORE; line = lines.next()) {
      if (line === undefined) continue;
      const waiting = each(line);
      if (waiting !== undefined) await waiting;
    }
  }
  const last = lines.end();
  if (last !== undefined) await each(last);
}

/** `LineSplitter.next` when the chunk fed last has no more complete lines. */
const NEED_MORE = Symbol('need more');

/** The lines of chunks fed one after the other, taken one at a time. */
class LineSplitter {
  private readonly decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  /** The line begun so far, in parts (a line may span chunks). */
  private parts: Buffer[] = [];
  private size = 0;
  private oversize = false;
  private lineNumber = 0;
  private chunk: Buffer = Buffer.alloc(0);
  private start = 0;

  constructor(
    private readonly maxLineBytes: number,
    private readonly keep: KeepLine | undefined,
  ) {}

  feed(raw: Uint8Array): void {
    this.chunk = Buffer.isBuffer(raw) ? raw : Buffer.from(raw);
    this.start = 0;
  }

  /** The next line the chunk completes (undefined for one skipped), or `NEED_MORE`. */
  next(): InputLine | undefined | typeof NEED_MORE {
    const { chunk, start } = this;
    const index = chunk.indexOf(NEWLINE, start);
    if (index === -1) {
      if (start < chunk.length) this.append(Buffer.from(chunk.subarray(start)));
      this.start = chunk.length;
      return NEED_MORE;
    }
    this.append(chunk.subarray(start, index));
    this.start = index + 1;
    return this.finishLine();
  }

  /** The last line, where the stream ended without its newline. */
  end(): InputLine | undefined {
    return this.size > 0 || this.oversize ? this.finishLine() : undefined;
  }

  private finishLine(): InputLine | undefined {
    this.lineNumber += 1;
    const { parts, size, oversize, lineNumber, maxLineBytes, keep } = this;
    const bytes = parts.length === 1 ? parts[0]! : Buffer.concat(parts, size);
    this.parts = [];
    this.size = 0;
    this.oversize = false;
    if (oversize) {
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
      const text = this.decoder.decode(line);
      return { ok: true, lineNumber, text };
    } catch {
      return { ok: false, lineNumber, reason: 'invalid_utf8', message: 'line is not valid UTF-8' };
    }
  }

  private append(chunk: Buffer): void {
    if (this.oversize) return;
    if (this.size + chunk.length > this.maxLineBytes + 1) {
      this.oversize = true;
      this.parts = [];
      this.size = 0;
      return;
    }
    this.parts.push(chunk);
    this.size += chunk.length;
  }
}
