import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readLines } from '../../src/sources/ndjson-lines.js';
import type { InputLine } from '../../src/sources/ndjson-lines.js';

async function collect(chunks: (string | Buffer)[], maxLineBytes?: number): Promise<InputLine[]> {
  const out: InputLine[] = [];
  const stream = Readable.from(chunks.map((c) => (typeof c === 'string' ? Buffer.from(c) : c)));
  for await (const line of readLines(stream, maxLineBytes)) out.push(line);
  return out;
}

describe('readLines', () => {
  it('splits LF and CRLF lines across chunk boundaries, with or without a final newline', async () => {
    expect(await collect(['{"a":', '1}\r\n{"b"', ':2}\n\n{"c":3}'])).toEqual([
      { ok: true, lineNumber: 1, text: '{"a":1}' },
      { ok: true, lineNumber: 2, text: '{"b":2}' },
      { ok: true, lineNumber: 4, text: '{"c":3}' },
    ]);
  });

  it('strips a byte order mark', async () => {
    expect(await collect(['\uFEFF{"a":1}\n'])).toEqual([
      { ok: true, lineNumber: 1, text: '{"a":1}' },
    ]);
  });

  it('reports invalid UTF-8 and goes on', async () => {
    const lines = await collect([Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]), '{"ok":true}\n']);
    expect(lines).toEqual([
      { ok: false, lineNumber: 1, reason: 'invalid_utf8', message: 'line is not valid UTF-8' },
      { ok: true, lineNumber: 2, text: '{"ok":true}' },
    ]);
  });

  it('skips an oversize line without holding it, and keeps counting', async () => {
    const huge = Array.from({ length: 50 }, () => 'x'.repeat(100));
    const lines = await collect(['{"a":1}\n', ...huge, '\n{"b":2}'], 1000);
    expect(lines).toEqual([
      { ok: true, lineNumber: 1, text: '{"a":1}' },
      { ok: false, lineNumber: 2, reason: 'line_too_long', message: 'line longer than 1000 bytes' },
      { ok: true, lineNumber: 3, text: '{"b":2}' },
    ]);
  });

  it('keeps NUL bytes in a line for the JSON parser to reject', async () => {
    expect(await collect(['{"a":\u00001}\n'])).toEqual([
      { ok: true, lineNumber: 1, text: '{"a":\u00001}' },
    ]);
  });
});
