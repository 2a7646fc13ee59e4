// `handleJsonLines` decodes a slice of lines before it applies any of them. It must answer, count
// and map exactly as `handleJson` of each line in turn: checked on generated behest runs delivered
// displaced, late and twice, with malformed lines of every kind the decoder refuses mixed in at
// random places, cut into slices of random sizes (some longer than the lines decoded at once).
// Both sinks run on one fixed clock: the two ways read it in another order, never another number
// of times per event, and a clock that stepped on every reading would tell the orders apart.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HandleResult } from '../../src/index.js';
import { LINES_AT_ONCE } from '../../src/sink/line-decoding.js';
import { behestRuns, deliveryOf } from '../helpers/behest-runs.js';
import { createHarness } from '../helpers/harness.js';
import type { Harness } from '../helpers/harness.js';
import { exportedSpans } from '../helpers/sink-mapping.js';

const NOW = Date.UTC(2025, 5, 1, 12);

/** Lines the decoder turns down, each for another reason. */
const MALFORMED = [
  '{"RunStarted":',
  'not json at all',
  '[1,2,3]',
  '42',
  `${'['.repeat(80)}${']'.repeat(80)}`,
  '{"NoSuchVariant":{"run_id":"0190f3a2-7c4e-4b8a-9d2e-000000000001"}}',
  '{"TextDelta":{"run_id":7,"delta":"x","timestamp":"2025-06-01T12:00:00Z"}}',
  '{"TextDelta":{"run_id":"0190f3a2-7c4e-4b8a-9d2e-000000000001","delta":"x","timestamp":"yesterday"}}',
  '{"RunCompleted":{"run_id":"0190f3a2-7c4e-4b8a-9d2e-000000000001"}}',
  '{}',
];

const input = behestRuns(30).chain((runs) =>
  fc.tuple(
    deliveryOf(runs, { window: 3, lateAfterTerminal: 2, duplicates: 3 }),
    fc.array(fc.tuple(fc.nat(10_000), fc.constantFrom(...MALFORMED)), { maxLength: 12 }),
    fc.array(fc.integer({ min: 1, max: LINES_AT_ONCE * 2 + 7 }), { minLength: 1, maxLength: 8 }),
  ),
);

/** The delivered lines with the malformed ones put in at their drawn places. */
function withMalformed(lines: readonly string[], bad: readonly [number, string][]): string[] {
  const out = [...lines];
  for (const [at, line] of bad) out.splice(at % (out.length + 1), 0, line);
  return out;
}

/** The lines cut into slices of the drawn sizes, the last size repeated to the end. */
function slices(lines: readonly string[], sizes: readonly number[]): string[][] {
  const out: string[][] = [];
  for (let at = 0, k = 0; at < lines.length; k += 1) {
    const size = sizes[Math.min(k, sizes.length - 1)]!;
    out.push(lines.slice(at, at + size));
    at += size;
  }
  return out;
}

const sinkOf = (): Harness =>
  createHarness({
    now: () => NOW,
    countWindowsInEvents: true,
    reorderWindowMillis: 1_000,
    lateGraceMillis: 5_000,
  });

/** Everything a sink made of its input: answers, counts, spans and metrics, at its shutdown. */
async function outcome(h: Harness, answers: readonly HandleResult[]) {
  h.sink.endOpenRuns('end_of_input');
  await h.sink.shutdown();
  return {
    answers,
    stats: h.sink.stats(),
    spans: exportedSpans(h.exporter),
    // The SDK's own clock times each point: what they count is compared.
    metrics: (await h.metrics()).map((m) => ({
      name: m.descriptor.name,
      points: m.dataPoints.map((p) => ({ attributes: p.attributes, value: p.value })),
    })),
  };
}

describe('handleJsonLines', () => {
  it('answers, counts and maps every line as handleJson does, whatever the slices', async () => {
    let malformedSeen = 0;
    let longSlices = 0;
    await fc.assert(
      fc.asyncProperty(input, async ([delivered, bad, sizes]) => {
        const lines = withMalformed(delivered, bad);
        const oneByOne = sinkOf();
        const stream = oneByOne.sink.openStream('input', 'behest');
        const expected = await outcome(
          oneByOne,
          lines.map((line) => stream.handleJson(line)),
        );

        const sliced = sinkOf();
        const slicedStream = sliced.sink.openStream('input', 'behest');
        const answers: HandleResult[] = [];
        const into: HandleResult[] = [];
        for (const slice of slices(lines, sizes)) {
          if (slice.length > LINES_AT_ONCE) longSlices += 1;
          slicedStream.handleJsonLines(slice, into);
          expect(into).toHaveLength(slice.length);
          answers.push(...into);
        }
        const actual = await outcome(sliced, answers);

        expect(actual).toEqual(expected);
        malformedSeen += expected.answers.filter((a) => a.outcome === 'rejected').length;
      }),
      { numRuns: 40 },
    );
    // The property was tried on rejections and on slices decoded in more than one part.
    expect(malformedSeen).toBeGreaterThan(0);
    expect(longSlices).toBeGreaterThan(0);
  });
});
