// A run's trace is a function of the set of its events: displaced within the reorder window,
// late after the terminal event within the grace period, duplicated, interleaved with other runs,
// behest runs give the same spans (ids, times, attributes, status, events) and the same metric
// totals as in-order delivery. Time is simulated (fake timers drive the sink's own clock).
import type { Attributes } from '@opentelemetry/api';
import type { DataPoint, Histogram, MetricData } from '@opentelemetry/sdk-metrics';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { behestRuns, deliveryOf } from '../../helpers/behest-runs.js';
import type { Delivery, Emitted } from '../../helpers/behest-runs.js';
import { behest, RUN_A } from '../../helpers/behest-lines.js';
import { createHarness } from '../../helpers/harness.js';

beforeEach(() => {
  vi.useFakeTimers({ now: Date.UTC(2026, 0, 1) });
});
afterEach(() => {
  vi.useRealTimers();
});

/** Everything of a span that a reader of the trace sees. */
function spanView(s: ReadableSpan) {
  return {
    trace: s.spanContext().traceId,
    id: s.spanContext().spanId,
    parent: s.parentSpanContext?.spanId,
    name: s.name,
    kind: s.kind,
    start: s.startTime,
    end: s.endTime,
    status: s.status,
    attributes: s.attributes,
    events: s.events.map((e) => ({ name: e.name, time: e.time, attributes: e.attributes })),
  };
}

/**
 * The contract's metrics (not the bridge's own input counts), point by point; histogram sums
 * apart, as they are added in the order runs end (equal up to floating-point rounding).
 */
function metricView(metrics: readonly MetricData[]) {
  const rows: { key: string; sum: number }[] = [];
  for (const m of metrics) {
    if (m.descriptor.name.startsWith('agent_bridge.')) continue;
    for (const p of m.dataPoints as DataPoint<number | Histogram>[]) {
      const value =
        typeof p.value === 'number'
          ? p.value
          : { count: p.value.count, buckets: p.value.buckets.counts };
      rows.push({
        key: JSON.stringify([m.descriptor.name, sortKeys(p.attributes), value]),
        sum: typeof p.value === 'number' ? p.value : (p.value.sum ?? 0),
      });
    }
  }
  return rows.sort((a, b) => a.key.localeCompare(b.key));
}

function expectSameMetrics(
  actual: ReturnType<typeof metricView>,
  expected: ReturnType<typeof metricView>,
) {
  expect(actual.map((r) => r.key)).toEqual(expected.map((r) => r.key));
  actual.forEach((r, i) => expect(r.sum).toBeCloseTo(expected[i]!.sum, 6));
}

function sortKeys(a: Attributes): Attributes {
  return Object.fromEntries(Object.entries(a).sort(([x], [y]) => x.localeCompare(y)));
}

/** Feeds lines as they arrive, `stepMillis` apart, lets every grace period pass, and reads. */
async function deliver(lines: readonly string[], steps: readonly number[]) {
  const h = createHarness({
    now: () => Date.now(),
    reorderWindowMillis: 2000,
    lateGraceMillis: 10_000,
    captureContent: true,
  });
  lines.forEach((line, i) => {
    const result = h.sink.handleJson(line, 'behest');
    expect(result.outcome).not.toBe('rejected');
    vi.advanceTimersByTime(steps[i % steps.length]!);
  });
  vi.advanceTimersByTime(15_000);
  const spans = h
    .spans()
    .map(spanView)
    .sort((a, b) => `${a.trace}${a.id}`.localeCompare(`${b.trace}${b.id}`));
  const stats = h.sink.stats();
  await h.sink.shutdown();
  return { spans, metrics: metricView(await h.metrics()), stats };
}

const inOrder = (runs: readonly Emitted[][]) => runs.flat().map((e) => e.line);

describe.each([2, 4, 8, 20])('delivery displaced by up to %i positions', (window) => {
  const cases: [string, Delivery][] = [
    ['displaced', { window, lateAfterTerminal: 0, duplicates: 0 }],
    [
      'displaced, late after the terminal and duplicated',
      { window, lateAfterTerminal: 3, duplicates: 4 },
    ],
  ];
  it.each(cases)('%s: the same trace and metrics as in order', async (_name, d) => {
    await fc.assert(
      fc.asyncProperty(
        behestRuns(4).chain((runs) =>
          fc.tuple(
            fc.constant(runs),
            deliveryOf(runs, d),
            fc.array(fc.integer({ min: 0, max: 10 }), { minLength: 1, maxLength: 16 }),
          ),
        ),
        async ([runs, shuffled, steps]) => {
          const expected = await deliver(inOrder(runs), [1]);
          const actual = await deliver(shuffled, steps);
          expect(actual.spans).toEqual(expected.spans);
          expectSameMetrics(actual.metrics, expected.metrics);
          expect(actual.stats.runs).toEqual(expected.stats.runs);
          // Nothing in this delivery is beyond the window or the grace: no event was late.
          expect(actual.stats.events.late).toBe(0);
          expect(actual.stats.events.accepted).toBe(expected.stats.events.accepted);
          expect(actual.stats.events.duplicate).toBe(d.duplicates);
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('reorder buffer', () => {
  it('waits for a late RunStarted instead of opening a synthesized root', async () => {
    const lines = [
      behest('ModelStarted', RUN_A, '00.200', { provider: 'p', model: 'm', iteration: 1 }),
      behest('RunStarted', RUN_A, '00.100', { provider: 'p', model: 'm' }),
      behest('RunCompleted', RUN_A, '01', {}),
    ];
    const { spans } = await deliver(lines, [5]);
    const root = spans.find((s) => s.name === 'invoke_agent')!;
    expect(root.start).toEqual([1748779200, 100_000_000]);
    expect(root.attributes['agent.run.synthesized']).toBeUndefined();
    expect(root.attributes['agent.run.outcome']).toBe('completed');
  });

  it('keeps deltas that share a timestamp, in their order, and drops only the same one twice', async () => {
    const words = ['The ', 'cat ', 'sat ', 'on ', 'the ', 'mat.'];
    const lines = [
      behest('RunStarted', RUN_A, '00', {}),
      behest('ModelStarted', RUN_A, '00.100', { iteration: 1 }),
      ...words.map((delta) => behest('TextDelta', RUN_A, '00.500', { delta })),
      behest('TextDelta', RUN_A, '00.500', { delta: 'mat.' }),
      behest('AssistantMessageCommitted', RUN_A, '00.900', {}),
      behest('RunCompleted', RUN_A, '01', {}),
    ];
    const { spans, stats } = await deliver(lines, [1]);
    const chat = spans.find((s) => s.name.startsWith('chat'))!;
    const messages = JSON.parse(String(chat.attributes['gen_ai.output.messages'])) as {
      parts: { content: string }[];
    }[];
    expect(messages[0]?.parts[0]?.content).toBe('The cat sat on the mat.');
    expect(stats.events.duplicate).toBe(1);
  });

  it('counts what arrives after the grace period as late, once, and changes nothing', async () => {
    const h = createHarness({
      now: () => Date.now(),
      reorderWindowMillis: 100,
      lateGraceMillis: 1000,
    });
    h.sink.handleJson(behest('RunStarted', RUN_A, '00', {}));
    h.sink.handleJson(behest('RunFailed', RUN_A, '02', { error: 'provider error' }));
    vi.advanceTimersByTime(500);
    // Within the grace: lands on the run.
    h.sink.handleJson(behest('DoomLoopDetected', RUN_A, '01', { description: 'cycle' }));
    vi.advanceTimersByTime(1000);
    expect(h.spans()).toHaveLength(1);
    const late = h.sink.handleJson(behest('UsageRecorded', RUN_A, '01.5', { usage: {} }));
    expect(late).toMatchObject({ outcome: 'late', reason: 'run_finished' });
    const root = h.spans()[0]!;
    expect(root.events.map((e) => e.name)).toEqual(['agent.doom_loop.detected', 'exception']);
    expect(root.attributes['error.type']).toBe('doom_loop');
    expect(h.sink.stats().events).toMatchObject({ accepted: 3, late: 1 });
    await h.sink.shutdown();
  });

  it('applies what was held long enough while the run is still open', () => {
    const h = createHarness({ now: () => Date.now(), reorderWindowMillis: 1000 });
    h.sink.handleJson(behest('RunStarted', RUN_A, '00', {}));
    h.sink.handleJson(behest('ModelStarted', RUN_A, '00.100', { iteration: 1 }));
    h.sink.handleJson(
      behest('ToolExecutionStarted', RUN_A, '00.200', { call_id: 'c', tool_name: 't' }),
    );
    h.sink.handleJson(
      behest('ToolExecutionFinished', RUN_A, '00.300', {
        call_id: 'c',
        tool_name: 't',
        result: { Success: { output: 1 } },
      }),
    );
    vi.advanceTimersByTime(500);
    expect(h.spans()).toHaveLength(0);
    vi.advanceTimersByTime(1000);
    expect(h.spans().map((s) => s.name)).toEqual(['execute_tool t']);
    expect(h.sink.stats().runs.open).toBe(1);
  });

  it('bounds what one run holds: beyond reorderWindowEvents the earliest is applied at once', () => {
    const h = createHarness({
      now: () => Date.now(),
      reorderWindowMillis: 60_000,
      reorderWindowEvents: 4,
    });
    h.sink.handleJson(behest('RunStarted', RUN_A, '00', {}));
    for (let i = 1; i <= 10; i += 1)
      h.sink.handleJson(
        behest('ToolExecutionFinished', RUN_A, `00.${String(i).padStart(3, '0')}`, {
          call_id: `c${i}`,
          tool_name: 't',
          result: { Success: { output: 1 } },
          duration_ms: 1,
        }),
      );
    // 11 events offered, at most 4 held: the earliest 7 were applied (6 tool spans ended).
    expect(h.spans()).toHaveLength(6);
  });
});
