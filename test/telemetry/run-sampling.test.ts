// Whole-run sampling: each run's spans held to its end, then the whole run kept or dropped. With
// a ratio of 0 for the rest, a mixed corpus exports exactly its failed, cancelled, abandoned,
// looped, breaker, slow and expensive runs, each whole; the run metrics still count every run.
import { createHash } from 'node:crypto';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ratioKeeps } from '../../src/telemetry/sampling/run-sampling-policy.js';
import type { RunSamplingPolicy } from '../../src/telemetry/sampling/run-sampling-policy.js';
import { RunSamplingProcessor } from '../../src/telemetry/sampling/run-sampling-processor.js';
import { behest, usageRun } from '../helpers/behest-lines.js';
import { fixtureCopies } from '../helpers/fixture-logs.js';
import { createSampledSink } from '../helpers/sampled-sink.js';

const id = (n: number) => `7c1d2e3f-0000-4a6b-8c7d-${String(n).padStart(12, '0')}`;
const traceOf = (runId: string) => runId.replaceAll('-', '');

/** A completed run of one call, with extra lines before its end. */
function completed(runId: string, tokens = 1_000, extra: string[] = [], endAt = '09.000') {
  const lines = usageRun(runId, 'openai', 'gpt-4o-mini', [{ input: tokens, output: 100 }]).split(
    '\n',
  );
  const end = lines
    .pop()!
    .replace('12:00:09.000Z', `12:${endAt.includes(':') ? endAt : `00:${endAt}`}Z`);
  return [...lines, ...extra, end].join('\n');
}

/** The corpus: what must be kept, by why, and plain runs that the ratio decides. */
function corpus() {
  const keep: Record<string, string[]> = {
    failed: [],
    cancelled: [],
    abandoned: [],
    doom_loop: [],
    breaker: [],
    slow: [],
    expensive: [],
  };
  const text: string[] = [];
  const fixtureRuns = (name: string, fixtureRunId: string, copies: number, tag: number) => {
    text.push(fixtureCopies(name, fixtureRunId, copies, tag));
    return Array.from(
      { length: copies },
      (_, i) => `${fixtureRunId.slice(0, 24)}${String(tag * 1000 + i).padStart(12, '0')}`,
    );
  };
  keep.failed!.push(...fixtureRuns('breaker', '5b0c1a2e-3333-4a6b-8c7d-000000000003', 3, 2));
  keep.cancelled!.push(
    ...fixtureRuns('cancelled-mid-tool', '5b0c1a2e-4444-4a6b-8c7d-000000000004', 3, 3),
  );
  // Completed runs that looped or tripped the breaker on the way.
  for (let i = 0; i < 3; i += 1) {
    const loop = id(100 + i);
    text.push(
      completed(loop, 1_000, [
        behest('DoomLoopDetected', loop, '05.000', { description: 'bash called 3 times' }),
      ]),
    );
    keep.doom_loop!.push(loop);
    const breaker = id(200 + i);
    text.push(
      completed(breaker, 1_000, [
        behest('CompactionCircuitOpened', breaker, '05.000', { consecutive_failures: 3 }),
      ]),
    );
    keep.breaker!.push(breaker);
    const slow = id(300 + i);
    text.push(completed(slow, 1_000, [], '04:00.000'));
    keep.slow!.push(slow);
    const expensive = id(400 + i);
    text.push(completed(expensive, 500_000));
    keep.expensive!.push(expensive);
  }
  // A run that never ends: abandoned at the end of the input.
  const open = id(500);
  text.push(
    usageRun(open, 'openai', 'gpt-4o-mini', [{ input: 10, output: 1 }])
      .split('\n')
      .slice(0, -1)
      .join('\n'),
  );
  keep.abandoned!.push(open);
  const plain = Array.from({ length: 40 }, (_, i) => id(1_000 + i));
  for (const runId of plain) text.push(completed(runId));
  return { keep, plain, ndjson: `${text.join('\n')}\n` };
}

const POLICY: RunSamplingPolicy = {
  ratio: 0,
  keepSlowerThanMillis: 60_000,
  keepTokensAbove: 100_000,
};

/** Maps the NDJSON through a sink whose spans go through run sampling (or none). */
async function mapped(ndjson: string, policy: RunSamplingPolicy | undefined) {
  const { sink, exporter, processor, reader, tracerProvider } = createSampledSink(policy);
  for (const line of ndjson.split('\n')) if (line.trim() !== '') sink.handleJson(line);
  sink.endOpenRuns('end_of_input');
  await sink.shutdown();
  await tracerProvider.forceFlush();
  const spansByTrace = new Map<string, ReadableSpan[]>();
  for (const span of exporter.getFinishedSpans()) {
    const list = spansByTrace.get(span.spanContext().traceId) ?? [];
    list.push(span);
    spansByTrace.set(span.spanContext().traceId, list);
  }
  const { resourceMetrics } = await reader.collect();
  const metric = (name: string) =>
    resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === name);
  const sum = (name: string) =>
    (metric(name)?.dataPoints ?? []).reduce((t, p) => t + (p.value as number), 0);
  return { spansByTrace, sum, metric, processor };
}

describe('run-outcome sampling', () => {
  it('with a ratio of 0 exports exactly the failed, cancelled, abandoned, looped, breaker, slow and expensive runs, whole', async () => {
    const { keep, plain, ndjson } = corpus();
    const all = await mapped(ndjson, undefined);
    const sampled = await mapped(ndjson, POLICY);
    const kept = Object.values(keep).flat().map(traceOf);
    expect([...sampled.spansByTrace.keys()].sort()).toEqual([...kept].sort());
    // Whole: every kept run has every span it has without sampling, with the same content.
    for (const trace of kept) {
      const names = (spans: ReadableSpan[] | undefined) =>
        (spans ?? []).map((s) => `${s.spanContext().spanId} ${s.name}`).sort();
      expect(names(sampled.spansByTrace.get(trace)), trace).toEqual(
        names(all.spansByTrace.get(trace)),
      );
    }
    for (const runId of plain) expect(sampled.spansByTrace.has(traceOf(runId))).toBe(false);
    // Metrics are not sampled: every run is counted.
    const runs = kept.length + plain.length;
    expect(sampled.sum('agent.runs')).toBe(runs);
    expect(all.sum('agent.runs')).toBe(runs);
    // Said by reason.
    const decisions = sampled
      .metric('agent_bridge.sampling.runs')!
      .dataPoints.map((p) => [
        p.attributes['agent_bridge.sampling.decision'],
        p.attributes['agent_bridge.reason'],
        p.value,
      ]);
    expect(decisions).toEqual(
      expect.arrayContaining([
        ['dropped', 'ratio', plain.length],
        ['kept', 'failed', keep.failed!.length],
        ['kept', 'cancelled', keep.cancelled!.length],
        ['kept', 'abandoned', 1],
        ['kept', 'doom_loop', 3],
        ['kept', 'breaker', 3],
        ['kept', 'slow', 3],
        ['kept', 'expensive', 3],
      ]),
    );
    expect(sampled.processor).toBeInstanceOf(RunSamplingProcessor);
    expect((sampled.processor as RunSamplingProcessor).heldSpanCount).toBe(0);
  });

  it('keeps runs above a cost', async () => {
    const { ndjson } = corpus();
    const byCost = await mapped(ndjson, { ratio: 0, keepCostAboveUsd: 0.05 });
    // 500 000 input tokens of gpt-4o-mini cost $0.075; the plain runs cost $0.00021.
    const expensive = [...byCost.spansByTrace.keys()].filter((t) =>
      t.includes('7c1d2e3f00004a6b8c7d0000000004'),
    );
    expect(expensive).toHaveLength(3);
  });

  it('decides by the run alone: the same runs in any process, about the ratio of them', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 0, max: 1e9 }),
        (ratio, salt) => {
          const ids = Array.from({ length: 2_000 }, (_, i) =>
            createHash('sha256').update(`${salt}/${i}`).digest('hex').slice(0, 32),
          );
          const kept = ids.filter((t) => ratioKeeps(ratio, t));
          // Another process decides the same.
          expect(ids.filter((t) => ratioKeeps(ratio, t))).toEqual(kept);
          // Binomial: within 5 standard deviations of the ratio.
          const sd = Math.sqrt(ratio * (1 - ratio) * ids.length);
          expect(Math.abs(kept.length - ratio * ids.length)).toBeLessThanOrEqual(5 * sd + 1);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('holds no more spans than its bound: past it, the run held longest is kept, not dropped', async () => {
    const { sink, exporter, processor: held } = createSampledSink({ ratio: 0, maxHeldSpans: 25 });
    const processor = held!;
    // 30 runs open at once, each with settled calls (held spans), none ended.
    let most = 0;
    for (let i = 0; i < 30; i += 1) {
      const lines = usageRun(id(i), 'openai', 'gpt-4o-mini', [
        { input: 10, output: 1 },
        { input: 10, output: 1 },
      ]).split('\n');
      for (const line of lines.slice(0, -1)) {
        sink.handleJson(line);
        most = Math.max(most, processor.heldSpanCount);
      }
    }
    expect(most).toBeLessThanOrEqual(25);
    // The runs pushed out were kept: their spans were exported, and later ones follow them.
    expect(exporter.getFinishedSpans().length).toBeGreaterThan(0);
    expect(processor.counts.dropped).toBe(0);
    await sink.shutdown();
  });
});
