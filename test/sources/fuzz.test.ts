// Byte-level fuzzing of the NDJSON reader and the crabtalk frame decoder: whatever the bytes, a
// clear per-line result or error, never a crash or an unbounded allocation.
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CrabtalkFeedDecoder } from '../../src/dialects/crabtalk/crabtalk-feed.js';
import { readLineBatches, readLines } from '../../src/sources/ndjson-lines.js';
import type { InputLine } from '../../src/sources/ndjson-lines.js';

const NEWLINE = 0x0a;

describe('readLines fuzz', () => {
  it('splits any bytes into numbered lines within the limit, reporting what it skips', async () => {
    const chunks = fc.array(
      fc
        .uint8Array({ maxLength: 300 })
        .map((b) => (b.length > 0 && b[0]! % 4 === 0 ? Uint8Array.from([...b, NEWLINE]) : b)),
      { maxLength: 20 },
    );
    await fc.assert(
      fc.asyncProperty(chunks, fc.integer({ min: 1, max: 400 }), async (parts, limit) => {
        const all = Buffer.concat(parts);
        const lines: InputLine[] = [];
        for await (const line of readLines(Readable.from(parts.map((p) => Buffer.from(p))), limit))
          lines.push(line);
        const physical =
          all.length === 0
            ? 0
            : all.toString('latin1').split('\n').length - (all.at(-1) === NEWLINE ? 1 : 0);
        expect(lines.length).toBeLessThanOrEqual(physical);
        let previous = 0;
        for (const line of lines) {
          expect(line.lineNumber).toBeGreaterThan(previous);
          previous = line.lineNumber;
          if (line.ok) expect(Buffer.byteLength(line.text)).toBeLessThanOrEqual(limit + 3);
          else expect(['line_too_long', 'invalid_utf8']).toContain(line.reason);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('gives the lines of each chunk together, in batches never empty, as readLines gives them one by one', async () => {
    const chunks = fc.array(
      fc.array(fc.constantFrom('{"a":1}', '', 'x', '\r', '\n', '\n\n', '\u00e9', '\uffff'), {
        maxLength: 12,
      }),
      { maxLength: 12 },
    );
    await fc.assert(
      fc.asyncProperty(chunks, fc.integer({ min: 1, max: 40 }), async (parts, limit) => {
        const buffers = () => parts.map((p) => Buffer.from(p.join('')));
        const batches: InputLine[][] = [];
        for await (const batch of readLineBatches(Readable.from(buffers()), limit))
          batches.push(batch);
        const lines: InputLine[] = [];
        for await (const line of readLines(Readable.from(buffers()), limit)) lines.push(line);
        for (const batch of batches) expect(batch.length).toBeGreaterThan(0);
        expect(batches.flat()).toStrictEqual(lines);
        // A batch is what one chunk completes: no more batches than chunks (and the last line).
        expect(batches.length).toBeLessThanOrEqual(parts.length + 1);
      }),
      { numRuns: 300 },
    );
  });

  it('handles a line of megabytes without holding it, CRLF, NUL and a missing final newline', async () => {
    const huge = Buffer.alloc(8 * 1024 * 1024, 0x61);
    const lines: InputLine[] = [];
    for await (const line of readLines(
      Readable.from([huge, Buffer.from('\r\n{"a":\u0000}\r\n{"b":1}')]),
      1024,
    ))
      lines.push(line);
    expect(lines).toEqual([
      { ok: false, lineNumber: 1, reason: 'line_too_long', message: 'line longer than 1024 bytes' },
      { ok: true, lineNumber: 2, text: '{"a":\u0000}' },
      { ok: true, lineNumber: 3, text: '{"b":1}' },
    ]);
  });
});

describe('crabtalk frame decoder fuzz', () => {
  it('decodes or rejects any bytes with an Error, never anything else', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 512 }), (bytes) => {
        const decoder = new CrabtalkFeedDecoder(() => Date.UTC(2025, 5, 1, 12));
        // The outcome is taken first and checked after, so that a failed check is never taken
        // for the decoder's own rejection.
        let outcome: { frame: ReturnType<CrabtalkFeedDecoder['decode']> } | { error: unknown };
        try {
          outcome = { frame: decoder.decode(Buffer.from(bytes)) };
        } catch (error) {
          outcome = { error };
        }
        if ('error' in outcome) expect(outcome.error).toBeInstanceOf(Error);
        else expect(['event', 'error', 'other']).toContain(outcome.frame.kind);
      }),
      { numRuns: 2000 },
    );
  });

  it('rejects a length that runs past the frame instead of allocating it', () => {
    // field 21, wire type 2, length 2^62: must fail fast as truncated, not allocate.
    const frame = Buffer.from([0xaa, 0x01, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40]);
    expect(() => new CrabtalkFeedDecoder(Date.now).decode(frame)).toThrow(
      'field runs past the end of the message',
    );
  });
});
