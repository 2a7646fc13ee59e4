// `ingest --workers`: the main thread routes the lines of stdin and followed files; every worker
// reads a regular file itself and takes its own lines, most of them found from their bytes and
// never decoded. Both must split an input alike: each line to exactly one worker, the worker the
// main thread would have chosen for every line that decodes, and the same text there.
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createInputRouter } from '../../src/cli/workers/input-router.js';
import type { InputDialect } from '../../src/events/dialect-name.js';
import { eachLine, readLines } from '../../src/sources/ndjson-lines.js';
import type { InputLine } from '../../src/sources/ndjson-lines.js';
import { fixture } from '../helpers/fixture-logs.js';

const MAX_LINE_BYTES = 300;
const OXI = fixture('oxi/agent-loop.ndjson');

/** One line of a generated input, as bytes (without its newline). */
const line = fc.oneof(
  // behest as serde writes it, runs repeating
  fc
    .tuple(fc.constantFrom('RunStarted', 'ToolCallStarted', 'X1'), fc.integer({ min: 0, max: 9 }))
    .map(([variant, run]) =>
      Buffer.from(`{"${variant}":{"run_id":"run-${run}","timestamp":"2025-06-01T12:00:00Z"}}`),
    ),
  // behest the byte reader leaves to the text reader: escapes, spacing, non-ASCII ids
  fc
    .tuple(fc.string({ minLength: 1, maxLength: 6, unit: 'binary' }), fc.boolean())
    .map(([id, spaced]) =>
      Buffer.from(JSON.stringify({ RunStarted: { run_id: id } }, null, spaced ? 1 : undefined)),
    ),
  fc.constantFrom(...OXI).map((text) => Buffer.from(text)),
  fc.constantFrom('not json', '{"A":{}}', '[1]', '', '\r').map((text) => Buffer.from(text)),
  // invalid UTF-8, with and without a run id the bytes name
  fc.constantFrom(
    Buffer.from([0x7b, 0xff, 0x7d]),
    Buffer.concat([
      Buffer.from('{"RunStarted":{"run_id":"run-3","x":"'),
      Buffer.from([0xc3, 0x28, 0x22, 0x7d, 0x7d]),
    ]),
  ),
  // too long to hold
  fc.constant(
    Buffer.from(`{"RunStarted":{"run_id":"run-1","pad":"${'x'.repeat(MAX_LINE_BYTES)}"}}`),
  ),
);

const chunked = (bytes: Buffer, cuts: number[]) => {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let at = 0;
  for (const p of [...points, bytes.length]) {
    if (p > at) chunks.push(bytes.subarray(at, p));
    at = p;
  }
  return Readable.from(chunks);
};

interface Taken {
  readonly owner: number;
  readonly line: InputLine;
}

async function routedByMain(bytes: Buffer, dialect: InputDialect, workers: number) {
  const router = createInputRouter(dialect, 'input.ndjson', workers);
  const taken = new Map<number, Taken>();
  for await (const line of readLines(Readable.from([bytes]), MAX_LINE_BYTES))
    taken.set(line.lineNumber, { owner: router.route(line), line });
  return taken;
}

async function readBySelf(
  bytes: Buffer,
  dialect: InputDialect,
  workers: number,
  self: number,
  cuts: number[],
) {
  const router = createInputRouter(dialect, 'input.ndjson', workers);
  const taken: InputLine[] = [];
  // As a worker thread reads its share of a file.
  await eachLine(chunked(bytes, cuts), MAX_LINE_BYTES, router.keepFor(self), (line) => {
    if (router.route(line) === self) taken.push(line);
    return undefined;
  });
  return taken;
}

describe('routing an input among workers', () => {
  it('splits it alike whether the main thread routes its lines or each worker reads it whole', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { maxLength: 60 }),
        fc.constantFrom<InputDialect>('auto', 'behest', 'oxi'),
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.boolean(),
        async (lines, dialect, workers, cuts, crlf) => {
          const bytes = Buffer.concat(lines.flatMap((l) => [l, Buffer.from(crlf ? '\r\n' : '\n')]));
          const main = await routedByMain(bytes, dialect, workers);
          const byWorker = await Promise.all(
            Array.from({ length: workers }, (_, k) => readBySelf(bytes, dialect, workers, k, cuts)),
          );
          const takers = new Map<number, number[]>();
          byWorker.forEach((taken, k) => {
            for (const l of taken)
              takers.set(l.lineNumber, [...(takers.get(l.lineNumber) ?? []), k]);
          });
          // A runtime without run ids keeps its whole input on the first worker.
          if (dialect === 'oxi')
            expect([...main.values()].filter((t) => t.owner !== 0)).toEqual([]);
          // Every line the main thread would hand over is taken, once, and nothing else.
          expect([...takers.keys()].sort((a, b) => a - b)).toEqual([...main.keys()]);
          for (const [lineNumber, owners] of takers)
            expect([lineNumber, owners.length]).toEqual([lineNumber, 1]);
          for (const [k, taken] of byWorker.entries())
            for (const l of taken) {
              const routed = main.get(l.lineNumber)!;
              expect(l).toEqual(routed.line);
              // A line that does not decode may go elsewhere: its worker only rejects it.
              if (l.ok) expect([l.lineNumber, k]).toEqual([l.lineNumber, routed.owner]);
            }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('cuts none of the lines another worker takes, once the dialect is known', async () => {
    const lines = Array.from({ length: 40 }, (_, i) =>
      Buffer.from(`{"RunStarted":{"run_id":"run-${i}","timestamp":"2025-06-01T12:00:00Z"}}`),
    );
    const router = createInputRouter('auto', 'input.ndjson', 2);
    const keep = router.keepFor(1);
    const kept: boolean[] = [];
    let askedOfBytes = 0;
    const noted = (answer: boolean) => (kept.push(answer), answer);
    await eachLine(
      Readable.from([Buffer.concat(lines.flatMap((b) => [b, Buffer.from('\n')]))]),
      MAX_LINE_BYTES,
      {
        text: (text, from, to) => noted(keep.text(text, from, to)),
        bytes: (b) => ((askedOfBytes += 1), noted(keep.bytes(b))),
      },
      (l) => {
        router.route(l);
        return undefined;
      },
    );
    // The first line is decoded by every reader (it tells the dialect); after it, only its own.
    expect(kept[0]).toBe(true);
    const own = await routedByMain(
      Buffer.concat(lines.flatMap((b) => [b, Buffer.from('\n')])),
      'behest',
      2,
    );
    const expected = [...own.values()].map((t) => t.owner === 1);
    expect(kept.slice(1)).toEqual(expected.slice(1));
    expect(expected.slice(1).filter((x) => !x).length).toBeGreaterThan(5);
    // One chunk, decoded whole: every line was asked as it lies there, none of its bytes.
    expect([kept.length, askedOfBytes]).toEqual([lines.length, 0]);
  });
});
