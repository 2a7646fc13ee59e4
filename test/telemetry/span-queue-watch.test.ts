// The span queue watch against the SDK's real BatchSpanProcessor: on generated schedules of spans
// ending (sampled or not), exports completing and flushes, the spans it reports as dropped are
// exactly those the processor dropped: with what the exporter was handed, they make up every
// sampled span, and no span is in both.
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
  | { readonly kind: 'flush' };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('end' as const), sampled: fc.boolean() }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'complete' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'flush' as const }) },
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
  it('tells of exactly the spans the batch processor drops for a full queue', async () => {
    let dropping = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 10, maxLength: 120, size: 'large' }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 6 }),
        async (steps, capacity, batch) => {
          const handed: string[] = [];
          const waiting: ((result: ExportResult) => void)[] = [];
          const exporter: SpanExporter = {
            export: (spans, done) => {
              handed.push(...spans.map((s) => s.spanContext().spanId));
              waiting.push(done);
            },
            shutdown: () => Promise.resolve(),
          };
          const dropped: string[] = [];
          const watch = new SpanQueueWatch(capacity, (spans) =>
            dropped.push(...spans.map((s) => s.spanContext().spanId)),
          );
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
          let n = 0;
          const complete = async () => {
            waiting.shift()?.({ code: ExportResultCode.SUCCESS });
            await new Promise((r) => setImmediate(r));
          };
          for (const s of steps) {
            if (s.kind === 'end') {
              const ended = span((n += 1), s.sampled);
              if (s.sampled) sampled.push(ended.spanContext().spanId);
              processor.onEnd(ended);
            } else if (s.kind === 'complete') await complete();
            else void processor.forceFlush();
            await Promise.resolve();
          }
          // Everything queued goes out.
          const flushed = processor.forceFlush();
          while (waiting.length > 0) await complete();
          await flushed;
          await Promise.resolve();
          if (dropped.length > 0) dropping += 1;
          expect(handed.filter((id) => dropped.includes(id))).toEqual([]);
          expect([...handed, ...dropped].sort()).toEqual([...sampled].sort());
        },
      ),
      { numRuns: 300 },
    );
    // The queues did fill.
    expect(dropping).toBeGreaterThan(50);
  });
});
