// The span queue watch against the SDK's real BatchSpanProcessor: on generated schedules of spans
// ending (sampled or not), exports completing and flushes, under generated queue and batch sizes,
// the processor never drops a span for a full queue: every sampled span is handed to the exporter
// once, in the order the spans ended, spans wait while the queue is full and its load says so,
// and a flush hands on the spans that waited too.
import { TraceFlags } from '@opentelemetry/api';
import type { ExportResult } from '@opentelemetry/core';
import { ExportResultCode } from '@opentelemetry/core';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SpanQueueWatch } from '../../src/telemetry/export/span-queue-watch.js';

type Step =
  | { readonly kind: 'end'; readonly sampled: boolean }
  | { readonly kind: 'complete' }
  | { readonly kind: 'flush'; readonly settle: boolean };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('end' as const), sampled: fc.boolean() }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'complete' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('flush' as const), settle: fc.boolean() }),
  },
);

/** A span as the processor reads it: its context and its resource (no attributes pending). */
function span(n: number, sampled: boolean): ReadableSpan {
  const context = {
    traceId: 't'.repeat(32),
    spanId: String(n).padStart(16, '0'),
    traceFlags: sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
  };
  return { spanContext: () => context, resource: {} } as unknown as ReadableSpan;
}

describe('span queue watch', () => {
  it('holds the spans past a full queue and hands every sampled span on once, in order', async () => {
    let cases = 0;
    let waited = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 10, maxLength: 160, size: 'large' }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 6 }),
        async (steps, capacity, batch) => {
          const handed: string[] = [];
          const pending: ((result: ExportResult) => void)[] = [];
          const exporter: SpanExporter = {
            export: (spans, done) => {
              handed.push(...spans.map((s) => s.spanContext().spanId));
              pending.push(done);
            },
            shutdown: () => Promise.resolve(),
          };
          let toldWaiting = 0;
          const watch = new SpanQueueWatch(capacity, () => (toldWaiting += 1));
          const processor = watch.processor(
            new BatchSpanProcessor({
              exporter: watch.exporter(exporter),
              maxQueueSize: capacity,
              maxExportBatchSize: batch,
              scheduledDelayMillis: 1_000_000,
              exportTimeoutMillis: 1_000_000,
            }),
          );
          const sampled: string[] = [];
          let sawWaiting = false;
          let n = 0;
          const complete = async () => {
            pending.shift()?.({ code: ExportResultCode.SUCCESS });
            await new Promise((r) => setImmediate(r));
          };
          for (const s of steps) {
            if (s.kind === 'end') {
              const ended = span((n += 1), s.sampled);
              if (s.sampled) sampled.push(ended.spanContext().spanId);
              processor.onEnd(ended);
            } else if (s.kind === 'complete') await complete();
            else void processor.forceFlush();
            // Spans end in bursts, a flush begun within one: the room its batches make must not
            // go to the burst's next span ahead of those waiting.
            const settled = s.kind === 'complete' || (s.kind === 'flush' && s.settle);
            if (settled) await Promise.resolve();
            // What is neither handed on nor waiting is in the processor's queue, within its size.
            const inQueue = sampled.length - handed.length - watch.waitingSpans;
            expect(inQueue).toBeGreaterThanOrEqual(0);
            expect(inQueue).toBeLessThanOrEqual(capacity);
            expect(watch.load).toBeCloseTo((inQueue + watch.waitingSpans) / capacity, 9);
            if (watch.waitingSpans > 0) sawWaiting = true;
            // Once the room made is taken up, spans wait only while the queue is full.
            if (settled && watch.waitingSpans > 0) expect(inQueue).toBe(capacity);
          }
          // A flush hands on everything, what waited included.
          let flushed = false;
          const flushing = processor.forceFlush().then(() => (flushed = true));
          while (!flushed) {
            await complete();
            if (pending.length === 0) await new Promise((r) => setImmediate(r));
          }
          await flushing;
          expect(watch.waitingSpans).toBe(0);
          expect(handed).toEqual(sampled);
          if (sawWaiting) expect(toldWaiting).toBeGreaterThan(0);
          if (sawWaiting) waited += 1;
          cases += 1;
        },
      ),
      { numRuns: 300 },
    );
    // The queues did fill: the case under test happened.
    expect(waited).toBeGreaterThan(cases / 6);
  });
});
