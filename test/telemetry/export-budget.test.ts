// The hold through a collector outage bounds the wait for every export, those already in flight
// included: on schedules the machine chooses (when exports start, how long each attempt of the
// exporter's own retries takes, when the process starts closing), no export's caller waits past
// the outage's budget, or past the first failure that made the outage known, whichever is later.
//
// The inner exporter stands in for the SDK's OTLP transport, whose attempts against a dead
// address last as long as its own retries: this test chooses those lengths, which a real
// transport cannot be made to take (the e2e dead-collector test runs the real one).
import { ExportResultCode } from '@opentelemetry/core';
import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Outage, UNREACHABLE_HOLD_MILLIS } from '../../src/telemetry/export/outage.js';
import { RetryingSpanExporter } from '../../src/telemetry/export/retrying-export.js';

const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), {
  code: 'ECONNREFUSED',
});

interface Answer {
  readonly at: number;
  readonly result: ExportResult;
}

/**
 * An exporter whose every attempt fails with `refused` after the next of `lengths` (cycled),
 * until `backAt`: an attempt that starts from then on succeeds after the same length.
 */
function scriptedInner(lengths: readonly number[], backAt = Number.POSITIVE_INFINITY) {
  const attempts: { start: number; end: number }[] = [];
  const inner: SpanExporter = {
    export(_spans, done) {
      const length = lengths[attempts.length % lengths.length]!;
      const start = performance.now();
      attempts.push({ start, end: start + length });
      const ok = start >= backAt;
      setTimeout(
        () =>
          done(
            ok
              ? { code: ExportResultCode.SUCCESS }
              : { code: ExportResultCode.FAILED, error: refused },
          ),
        length,
      );
    },
    shutdown: () => Promise.resolve(),
  };
  return { inner, attempts };
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('an outage budget bounds every export held through it', () => {
  it('answers each export once, by the budget or the first failure, whichever is later', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1_000, max: 60_000 }),
        fc.array(fc.integer({ min: 0, max: 20_000 }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.integer({ min: 1, max: 12_000 }), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 0, max: 30_000 }),
        async (hold, starts, lengths, closeAt) => {
          vi.setSystemTime(0);
          const t0 = performance.now();
          const outage = new Outage(hold);
          const { inner, attempts } = scriptedInner(lengths);
          const exporter = new RetryingSpanExporter(inner, outage);
          const answers: Answer[][] = starts.map(() => []);
          const sorted = starts.map((s, i) => [s, i] as const).sort((a, b) => a[0] - b[0]);
          const events = [
            ...sorted.map(([at, i]) => ({ at, run: () => startExport(i) })),
            { at: closeAt, run: () => outage.close() },
          ].sort((a, b) => a.at - b.at);
          const startExport = (i: number) =>
            exporter.export([] as ReadableSpan[], (result) =>
              answers[i]!.push({ at: performance.now() - t0, result }),
            );
          for (const event of events) {
            await vi.advanceTimersByTimeAsync(event.at - (performance.now() - t0));
            event.run();
          }
          await vi.runAllTimersAsync();

          const budget = Math.min(hold, UNREACHABLE_HOLD_MILLIS);
          for (const [i, got] of answers.entries()) {
            // Once, and failed: nothing ever answered.
            expect(got, `export ${i}`).toHaveLength(1);
            expect(got[0]!.result.code).toBe(ExportResultCode.FAILED);
          }
          // The outage began with the attempt whose failure came first (of those ending together,
          // the latest start bounds it); none waits past its budget, past the moment that failure
          // made it known, past the close (a probe is given up then), or past its own start (an
          // export started later fails at once).
          const known = Math.min(...attempts.map((a) => a.end)) - t0;
          const since = Math.max(
            ...attempts.filter((a) => a.end - t0 === known).map((a) => a.start - t0),
          );
          for (const [i, got] of answers.entries()) {
            const bound = Math.max(since + budget, known, closeAt, starts[i]!);
            expect(got[0]!.at, `export ${i} (started ${starts[i]})`).toBeLessThanOrEqual(bound);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('loses nothing when the collector comes back within the budget', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 3_000 }), { minLength: 1, maxLength: 6 }),
        fc.array(fc.integer({ min: 1, max: 2_000 }), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 0, max: 20_000 }),
        async (starts, lengths, back) => {
          vi.setSystemTime(0);
          const t0 = performance.now();
          const outage = new Outage(60_000);
          outage.reachable(); // something answered at the address: the full hold applies
          const { inner } = scriptedInner(lengths, t0 + back);
          const exporter = new RetryingSpanExporter(inner, outage);
          const results: ExportResult[] = [];
          for (const start of [...starts].sort((a, b) => a - b)) {
            await vi.advanceTimersByTimeAsync(start - (performance.now() - t0));
            exporter.export([] as ReadableSpan[], (result) => results.push(result));
          }
          const closed = exporter.shutdown();
          outage.close();
          await vi.runAllTimersAsync();
          await closed;
          expect(results).toHaveLength(starts.length);
          for (const result of results) expect(result.code).toBe(ExportResultCode.SUCCESS);
        },
      ),
      { numRuns: 200 },
    );
  });
});
