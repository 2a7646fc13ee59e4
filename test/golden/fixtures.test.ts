import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createHarness, toSpanTree } from '../helpers/harness.js';
import type { Harness } from '../helpers/harness.js';

const SCENARIOS = [
  'tools-success-failure',
  'doom-loop',
  'breaker',
  'cancelled-mid-tool',
  'unknown-finish-reason',
  'abandoned',
  'late-and-duplicate',
  'garbage',
  'synthesized',
];

function fixture(name: string): string {
  return readFileSync(new URL(`../fixtures/behest/${name}.ndjson`, import.meta.url), 'utf8');
}

async function metricSummary(h: Harness): Promise<Record<string, unknown[]>> {
  const summary: Record<string, unknown[]> = {};
  for (const metric of await h.metrics()) {
    summary[`${metric.descriptor.name} (${metric.descriptor.unit})`] = metric.dataPoints.map(
      (p) => ({
        attributes: p.attributes,
        value:
          typeof p.value === 'number'
            ? p.value
            : {
                count: (p.value as { count: number }).count,
                sum: (p.value as { sum: number }).sum,
              },
      }),
    );
  }
  return summary;
}

describe('golden scenarios', () => {
  it.each(SCENARIOS)('%s', async (name) => {
    const h = createHarness({ agentName: 'golden' });
    const results = h
      .feed(fixture(name))
      .map((r) => [r.outcome, r.reason, r.message].filter((x) => x !== undefined).join(' | '));
    h.sink.endOpenRuns('end_of_input');
    expect({
      results,
      spans: toSpanTree(h.spans()),
      metrics: await metricSummary(h),
    }).toMatchSnapshot();
  });

  it('maps many interleaved concurrent runs exactly as it maps them one after another', async () => {
    const lines = fixture('concurrent').trim().split('\n');
    const interleaved = createHarness({ agentName: 'golden' });
    interleaved.feed(lines.join('\n'));
    const runOf = (line: string) =>
      Object.values(JSON.parse(line) as Record<string, { run_id: string }>)[0]!.run_id;
    const runIds = [...new Set(lines.map(runOf))];
    const sequential = createHarness({ agentName: 'golden' });
    for (const id of runIds) sequential.feed(lines.filter((l) => runOf(l) === id).join('\n'));

    expect(runIds).toHaveLength(48);
    expect(interleaved.sink.stats().runs).toEqual({
      open: 0,
      completed: 24,
      failed: 16,
      cancelled: 8,
      abandoned: 0,
    });
    const tree = toSpanTree(interleaved.spans());
    expect(tree).toHaveLength(48);
    expect(tree).toEqual(toSpanTree(sequential.spans()));
    const ids = (h: Harness) =>
      h
        .spans()
        .map(
          (s) =>
            `${s.spanContext().traceId}/${s.spanContext().spanId}/${s.parentSpanContext?.spanId ?? ''}`,
        )
        .sort();
    expect(ids(interleaved)).toEqual(ids(sequential));
    for (const span of interleaved.spans()) {
      const runId = span.name.startsWith('invoke_agent')
        ? span.attributes['agent.run.id']
        : undefined;
      if (typeof runId === 'string')
        expect(span.spanContext().traceId).toBe(runId.replaceAll('-', ''));
    }
    expect(await interleaved.sum('agent.runs')).toBe(48);
  });
});
