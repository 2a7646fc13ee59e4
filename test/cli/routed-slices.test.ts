// A share of `ingest --workers` maps the lines routed to it a slice at a time. Cutting a batch into
// slices must keep every line, in order, with its own input, dialect, number and text (or the
// reader's reason for turning it down), and never put two streams' lines in one slice.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { routedSlices } from '../../src/cli/workers/routed-slices.js';
import type { LineBatch } from '../../src/cli/workers/worker-protocol.js';
import type { InputDialect } from '../../src/events/dialect-name.js';

const DEFAULT: InputDialect = 'auto';

/** One routed line: its input, its dialect (undefined: the batch leaves it out), text or null. */
const routedLine = fc.record({
  input: fc.integer({ min: 0, max: 2 }),
  dialect: fc.option(fc.constantFrom<InputDialect>('behest', 'oxi', 'auto'), { nil: undefined }),
  text: fc.option(fc.string({ maxLength: 8 }), { nil: null, freq: 4 }),
  reason: fc.option(fc.constantFrom('line_too_long', 'invalid_utf8'), { nil: undefined }),
});

function batchOf(lines: readonly (typeof routedLine extends fc.Arbitrary<infer T> ? T : never)[]) {
  const batch: LineBatch = {
    type: 'lines',
    input: lines.map((l) => l.input),
    lineNumber: lines.map((_, i) => 10 + i),
    text: lines.map((l) => l.text),
    dialect: [],
    bad: [],
  };
  lines.forEach((l, i) => {
    if (l.dialect !== undefined) batch.dialect[i] = l.dialect;
    if (l.text === null && l.reason !== undefined)
      batch.bad.push({ index: i, reason: l.reason, message: `${l.reason} at ${i}` });
  });
  return batch;
}

describe('routedSlices', () => {
  it('keeps every line in order, one stream and at most a slice per slice, each slice as long as it can be', () => {
    fc.assert(
      fc.property(
        fc.array(routedLine, { maxLength: 60 }),
        fc.integer({ min: 1, max: 7 }),
        (lines, most) => {
          const batch = batchOf(lines);
          const slices = [...routedSlices(batch, DEFAULT, most)];
          const flat = slices.flatMap((s) => s.lines.map((l) => ({ ...l, s })));
          expect(flat.length).toBe(lines.length);
          flat.forEach((l, i) => {
            const want = lines[i]!;
            expect(l.lineNumber).toBe(10 + i);
            expect(l.s.input).toBe(want.input);
            expect(l.s.dialect).toBe(want.dialect ?? DEFAULT);
            if (want.text === null) {
              expect('text' in l).toBe(false);
              if (!('text' in l))
                expect([l.reason, l.message]).toEqual(
                  want.reason === undefined
                    ? ['invalid_line', 'unreadable line']
                    : [want.reason, `${want.reason} at ${i}`],
                );
            } else expect(l).toMatchObject({ text: want.text });
          });
          for (const [k, slice] of slices.entries()) {
            expect(slice.lines.length).toBeGreaterThan(0);
            expect(slice.lines.length).toBeLessThanOrEqual(most);
            // A slice ends early only where the next line is another stream's.
            const next = slices[k + 1];
            if (next !== undefined && slice.lines.length < most)
              expect([next.input, next.dialect]).not.toEqual([slice.input, slice.dialect]);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
