// Every metric the mapping records is described as docs/telemetry-contract.md's table says: its
// instrument kind and unit (dashboards and alert rules divide and label by them), the histogram
// buckets the table names, and a description for each. The table is read from the contract
// itself, so that a unit changed on either side is a failing test. A workload that reaches every
// one of the mapping's instruments (model calls with streamed chunks and cached tokens, tools,
// a doom loop, a breaker, a failed and an abandoned run, a limit hit) makes the points.
import type { Histogram } from '@opentelemetry/sdk-metrics';
import { describe, expect, it } from 'vitest';
import { behest, RUN_A, RUN_B, toolRun } from '../helpers/behest-lines.js';
import { contractMetrics, KINDS } from '../helpers/contract-metrics.js';
import { createHarness } from '../helpers/harness.js';

/** The mapping's own metrics (the sources' and the sampler's are measured where they are made). */
const MAPPING_METRICS = [
  'gen_ai.client.token.usage',
  'gen_ai.client.operation.duration',
  'gen_ai.client.operation.time_to_first_chunk',
  'gen_ai.invoke_agent.duration',
  'gen_ai.execute_tool.duration',
  'agent.cost.usd',
  'agent.tokens',
  'agent.runs',
  'agent.runs.active',
  'agent.runs.open',
  'agent.runs.open.oldest_age',
  'agent.runs.open.tokens',
  'agent.iterations',
  'agent.tool.calls',
  'agent.doom_loops',
  'agent.compaction.circuit_breaker.opened',
  'agent_bridge.events',
  'agent_bridge.runs.evicted',
  'agent_bridge.limits.hit',
];

describe('metric descriptors', () => {
  it('gives every metric the kind, unit, buckets and a description the contract names', async () => {
    const contract = contractMetrics();
    expect(contract.size).toBeGreaterThanOrEqual(MAPPING_METRICS.length);
    const h = createHarness({ agentName: 'coder', now: () => Date.UTC(2025, 5, 1, 12, 1) });
    h.feed(toolRun(RUN_A).join('\n'));
    h.feed(
      [
        behest('RunStarted', RUN_B, '10.000', { provider: 'openai', model: 'gpt-4o-mini' }),
        behest('CompactionCircuitOpened', RUN_B, '10.050', { consecutive_failures: 3 }),
        behest('ModelStarted', RUN_B, '10.100', { iteration: 1 }),
        behest('TextDelta', RUN_B, '10.300', { delta: 'a' }),
        behest('TextDelta', RUN_B, '10.400', { delta: 'b' }),
        behest('UsageRecorded', RUN_B, '10.500', {
          usage: { input_tokens: 900, output_tokens: 20, cache_read_input_tokens: 500 },
        }),
        behest('AssistantMessageCommitted', RUN_B, '10.600', { message_id: 'm-b' }),
        behest('DoomLoopDetected', RUN_B, '10.700', { description: 'read_file 3 times' }),
        // An over-long call id: cut, and the limit counted.
        behest('ToolExecutionStarted', RUN_B, '10.800', {
          call_id: `call_${'x'.repeat(300)}`,
          tool_name: 'read_file',
        }),
      ].join('\n'),
    );
    // Still open when the gauges are read; then ended as abandoned for the eviction counter.
    const open = await h.metrics();
    h.sink.endOpenRuns();
    const metrics = [
      ...open.filter((m) => m.descriptor.name.startsWith('agent.runs.open')),
      ...(await h.metrics()).filter((m) => !m.descriptor.name.startsWith('agent.runs.open')),
    ];
    const seen = new Map(metrics.map((m) => [m.descriptor.name, m]));
    for (const name of MAPPING_METRICS) {
      const row = contract.get(name);
      const metric = seen.get(name);
      expect(row, `${name} in the contract's table`).toBeDefined();
      expect(metric, `${name} recorded by the workload`).toBeDefined();
      expect(metric!.descriptor.unit, `${name} unit`).toBe(row!.unit);
      expect(KINDS[row!.kind], `${name} kind`).toContain(metric!.dataPointType);
      expect(metric!.descriptor.description.length, `${name} description`).toBeGreaterThan(10);
      if (row!.buckets !== undefined) {
        const boundaries = (metric!.dataPoints[0]!.value as Histogram).buckets.boundaries;
        expect([boundaries[0], boundaries.at(-1)], `${name} buckets`).toEqual(row!.buckets);
      }
    }
    // The gauges saw both open runs, the eviction counter the abandoned one.
    expect(seen.get('agent_bridge.runs.evicted')!.dataPoints.length).toBe(1);
  });
});
