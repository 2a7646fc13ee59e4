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
 * Whether to yield a line (without its newline), asked before it is cut or decoded; a line not
 * kept is counted, not yielded. Most lines are asked as they lie in their chunk, decoded with the
 * other lines it completes; a line that spans chunks, or lies where the chunk does not decode, is
 * asked of its bytes.
 */
export interface KeepLine {
  /** Of `text.slice(from, to)`, a line of a chunk decoded whole. */
  text(text: string, from: number, to: number): boolean;
  /** Of a line's bytes, not decoded; of undefined for a line too long to hold. */
  bytes(bytes: Buffer | undefined): boolean;
}

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

/**
 * The lines of chunks fed one after the other, taken one at a time.
 *
 * The complete lines of a chunk are decoded together into one string and the lines cut from it:
 * one call of the decoder per chunk instead of one per line, and no view of the bytes made for
 * each line (`keep` is asked of each as it lies in that string, and a line not kept is never
 * cut). Where that decoding fails (invalid UTF-8 somewhere in the chunk), those lines are taken
 * one at a time from their bytes, so that only the line at fault is refused. A line begun in one
 * chunk and ended in the next is put together from its bytes.
 */
class LineSplitter {
  private readonly decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  /** For many lines at once: a byte order mark is each line's to drop (see `nextOfText`). */
  private readonly keepingMarks = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  /** The line begun so far, in parts (a line may span chunks). */
  private parts: Buffer[] = [];
  private size = 0;
  private oversize = false;
  private lineNumber = 0;
  private chunk: Buffer = Buffer.alloc(0);
  private start = 0;
  /** Complete lines of the chunk decoded together, taken from `textAt` on. */
  private text = '';
  private textAt = 0;
  /** The chunk's bytes before this are taken one line at a time (their decoding together failed). */
  private bytesUntil = -1;

  constructor(
    private readonly maxLineBytes: number,
    private readonly keep: KeepLine | undefined,
  ) {}

  feed(raw: Uint8Array): void {
    this.chunk = Buffer.isBuffer(raw) ? raw : Buffer.from(raw);
    this.start = 0;
    this.bytesUntil = -1;
  }

  /** The next line the chunk completes (undefined for one skipped), or `NEED_MORE`. */
  next(): InputLine | undefined | typeof NEED_MORE {
    if (this.textAt < this.text.length) return this.nextOfText();
    const { chunk, start } = this;
    if (this.size === 0 && !this.oversize && start > this.bytesUntil) {
      const last = chunk.lastIndexOf(NEWLINE);
      if (last >= start) {
        try {
          this.text = this.keepingMarks.decode(chunk.subarray(start, last + 1));
          this.textAt = 0;
          this.start = last + 1;
          return this.nextOfText();
        } catch {
          this.bytesUntil = last;
        }
      }
    }
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

  /** The next line of `text` (which ends with a newline), as `finishLine` gives it. */
  private nextOfText(): InputLine | undefined {
    const text = this.text;
    const at = this.textAt;
    const newline = text.indexOf('\n', at);
    this.textAt = newline + 1;
    if (this.textAt === text.length) this.text = '';
    this.lineNumber += 1;
    // A line of `n` UTF-16 units is `n` to `3n` bytes long: counted only where that may matter.
    const units = newline - at;
    if (units * 3 > this.maxLineBytes + 1 && byteLength(text, at, newline) > this.maxLineBytes + 1)
      return this.keep !== undefined && !this.keep.bytes(undefined) ? undefined : this.tooLong();
    const end = newline > at && text.charCodeAt(newline - 1) === CR ? newline - 1 : newline;
    if (end === at) return undefined;
    // As decoding each line alone would: a byte order mark at its start is dropped.
    const from = text.charCodeAt(at) === 0xfeff ? at + 1 : at;
    if (this.keep !== undefined && !this.keep.text(text, from, end)) return undefined;
    return { ok: true, lineNumber: this.lineNumber, text: text.slice(from, end) };
  }

  private finishLine(): InputLine | undefined {
    this.lineNumber += 1;
    const { parts, size, oversize, lineNumber, keep } = this;
    const bytes = parts.length === 1 ? parts[0]! : Buffer.concat(parts, size);
    this.parts = [];
    this.size = 0;
    this.oversize = false;
    if (oversize) {
      if (keep !== undefined && !keep.bytes(undefined)) return undefined;
      return this.tooLong();
    }
    const end =
      bytes.length > 0 && bytes[bytes.length - 1] === CR ? bytes.length - 1 : bytes.length;
    if (end === 0) return undefined;
    const line = end === bytes.length ? bytes : bytes.subarray(0, end);
    if (keep !== undefined && !keep.bytes(line)) return undefined;
    try {
      const text = this.decoder.decode(line);
      return { ok: true, lineNumber, text };
    } catch {
      return { ok: false, lineNumber, reason: 'invalid_utf8', message: 'line is not valid UTF-8' };
    }
  }

  private tooLong(): InputLine {
    return {
      ok: false,
      lineNumber: this.lineNumber,
      reason: 'line_too_long',
      message: `line longer than ${this.maxLineBytes} bytes`,
    };
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

/** UTF-8 bytes of `text` from `start` to `end` (well-formed: it was decoded from UTF-8). */
function byteLength(text: string, start: number, end: number): number {
  return Buffer.byteLength(text.slice(start, end), 'utf8');
}
