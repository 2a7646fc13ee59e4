// The export watcher tells a listener what reached the collector. An export that fails after a
// later-begun one succeeded (a request that hung past the collector's recovery) is told as
// superseded: its spans failed, but the collector answers. Generated interleavings of exports
// beginning and ending, each succeeding or failing, against a plain model of that rule.
import { ExportResultCode } from '@opentelemetry/core';
import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WatchedSpanExporter } from '../../src/telemetry/export/export-watcher.js';
import type { ExportListener } from '../../src/telemetry/export/export-watcher.js';

/** A span of trace `t{n}` as far as the watcher looks at it. */
const span = (n: number) =>
  ({
    spanContext: () => ({ traceId: `t${n}`, spanId: `s${n}`, traceFlags: 1 }),
  }) as unknown as ReadableSpan;

describe('WatchedSpanExporter', () => {
  it('tells a failure as superseded exactly when an export begun after it has succeeded', () => {
    fc.assert(
      fc.property(
        // Each step: begin a new export, or end the k-th still open one, succeeding or failing.
        fc.array(
          fc.oneof(
            fc.constant({ begin: true as const }),
            fc.record({ begin: fc.constant(false as const), k: fc.nat(), ok: fc.boolean() }),
          ),
          { maxLength: 30 },
        ),
        (steps) => {
          const pending: { n: number; done: (r: ExportResult) => void }[] = [];
          const inner: SpanExporter = {
            export: (spans, done) =>
              pending.push({ n: Number(spans[0]!.spanContext().spanId.slice(1)), done }),
            shutdown: () => Promise.resolve(),
          };
          const told: string[] = [];
          const listener: ExportListener = {
            spansExported: (spans) => told.push(`ok ${[...spans.keys()].join()}`),
            spansFailed: (spans, _e, superseded) =>
              told.push(`failed ${[...spans.keys()].join()} ${superseded === true}`),
            metricsExported: () => undefined,
            metricsFailed: () => undefined,
          };
          const watcher = new WatchedSpanExporter(inner, listener);
          const expected: string[] = [];
          let begun = 0;
          let newestOk = 0;
          for (const step of steps) {
            if (step.begin) {
              begun += 1;
              watcher.export([span(begun)], () => undefined);
            } else if (pending.length > 0) {
              const [ending] = pending.splice(step.k % pending.length, 1);
              if (step.ok) {
                newestOk = Math.max(newestOk, ending!.n);
                expected.push(`ok t${ending!.n}`);
              } else expected.push(`failed t${ending!.n} ${ending!.n < newestOk}`);
              ending!.done(
                step.ok
                  ? { code: ExportResultCode.SUCCESS }
                  : { code: ExportResultCode.FAILED, error: new Error('timeout') },
              );
            }
          }
          expect(told).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });
});
