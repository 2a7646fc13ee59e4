import { describe, expect, it } from 'vitest';
import type { Histogram } from '@opentelemetry/sdk-metrics';
import { behest, RUN_A, RUN_B, toolRun } from '../helpers/behest-lines.js';
import { createHarness } from '../helpers/harness.js';
import type { MetricPoint } from '../helpers/harness.js';

const SECOND_BUCKETS = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];

function histogram(point: MetricPoint | undefined): Histogram {
  if (point === undefined || typeof point.value === 'number')
    throw new Error('expected a histogram point');
  return point.value;
}

describe('metrics', () => {
  const h = createHarness({ agentName: 'support-bot' });
  h.feed(
    [
      ...toolRun(RUN_A),
      behest('RunStarted', RUN_B, '00', { provider: 'anthropic', model: 'claude-sonnet' }),
      behest('ModelStarted', RUN_B, '00.5', {
        provider: 'anthropic',
        model: 'claude-sonnet',
        iteration: 1,
      }),
      behest('ToolExecutionFinished', RUN_B, '01', {
        call_id: 'x',
        tool_name: 'get_weather',
        result: { Failure: { error: 'boom' } },
        duration_ms: 300,
      }),
      behest('DoomLoopDetected', RUN_B, '02', {
        description: 'consecutive duplicate: get_weather called 3 times',
      }),
      behest('CompactionCircuitOpened', RUN_B, '02.5', { consecutive_failures: 3 }),
      behest('RunFailed', RUN_B, '03', { error: 'doom loop detected' }),
    ].join('\n'),
  );

  it('records token usage per UsageRecorded and token type, with semconv buckets', async () => {
    const points = await h.points('gen_ai.client.token.usage');
    expect(points.map((p) => p.attributes)).toEqual([
      {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'gpt-4o-mini',
        'gen_ai.token.type': 'input',
      },
      {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'gpt-4o-mini',
        'gen_ai.token.type': 'output',
      },
    ]);
    expect(points[0]!.unit).toBe('{token}');
    const input = histogram(points[0]);
    expect([input.count, input.sum]).toEqual([2, 912]);
    expect(input.buckets.boundaries).toEqual([
      1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
    ]);
  });

  it('records model call duration and time to first chunk in seconds', async () => {
    const [duration] = (await h.points('gen_ai.client.operation.duration')).filter(
      (p) => p.attributes['gen_ai.provider.name'] === 'openai',
    );
    expect(duration!.unit).toBe('s');
    expect(histogram(duration).buckets.boundaries).toEqual(SECOND_BUCKETS);
    expect(histogram(duration).count).toBe(2);
    expect(histogram(duration).sum).toBeCloseTo(0.8 + 0.5, 9);
    const failed = (await h.points('gen_ai.client.operation.duration')).find(
      (p) => p.attributes['gen_ai.provider.name'] === 'anthropic',
    );
    expect(failed?.attributes['error.type']).toBeUndefined(); // the model call ended at the tool, before the failure
    const ttfc = await h.points('gen_ai.client.operation.time_to_first_chunk');
    expect(ttfc).toHaveLength(1);
    expect(histogram(ttfc[0]).sum).toBeCloseTo(0.5 + 0.3, 9);
  });

  it('records run duration, outcome counts, iterations and the active gauge', async () => {
    const durations = await h.points('gen_ai.invoke_agent.duration');
    expect(durations.map((p) => p.attributes)).toEqual([
      {
        'gen_ai.agent.name': 'support-bot',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'gpt-4o-mini',
        'agent.run.outcome': 'completed',
      },
      {
        'gen_ai.agent.name': 'support-bot',
        'gen_ai.provider.name': 'anthropic',
        'gen_ai.request.model': 'claude-sonnet',
        'agent.run.outcome': 'failed',
        'error.type': 'doom_loop',
      },
    ]);
    expect(histogram(durations[0]).sum).toBe(2);
    expect(histogram(durations[0]).buckets.boundaries).toEqual([
      0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 6.4, 12.8, 25.6, 51.2, 102.4, 204.8, 409.6,
    ]);
    expect(
      await h.sum('agent.runs', {
        'agent.run.outcome': 'completed',
        'gen_ai.agent.name': 'support-bot',
      }),
    ).toBe(1);
    expect(
      await h.sum('agent.runs', {
        'agent.run.outcome': 'failed',
        'gen_ai.request.model': 'claude-sonnet',
      }),
    ).toBe(1);
    const iterations = await h.points('agent.iterations');
    expect(iterations.map((p) => [p.attributes, histogram(p).sum])).toEqual([
      [{ 'gen_ai.agent.name': 'support-bot', 'agent.run.outcome': 'completed' }, 2],
      [{ 'gen_ai.agent.name': 'support-bot', 'agent.run.outcome': 'failed' }, 1],
    ]);
    expect(await h.sum('agent.runs.active')).toBe(0);
  });

  it('records tool durations and calls by outcome', async () => {
    const durations = await h.points('gen_ai.execute_tool.duration');
    expect(durations.map((p) => [p.attributes, histogram(p).sum])).toEqual([
      [
        { 'gen_ai.tool.name': 'get_weather', 'agent.tool.outcome': 'success' },
        expect.closeTo(0.042, 9),
      ],
      [
        {
          'gen_ai.tool.name': 'get_weather',
          'agent.tool.outcome': 'failure',
          'error.type': 'tool_error',
        },
        expect.closeTo(0.3, 9),
      ],
    ]);
    expect(await h.sum('agent.tool.calls', { 'agent.tool.outcome': 'failure' })).toBe(1);
    expect(await h.sum('agent.tool.calls', { 'agent.tool.outcome': 'success' })).toBe(1);
  });

  it('counts doom loops and breaker trips', async () => {
    expect(await h.points('agent.doom_loops')).toMatchObject([
      {
        unit: '{event}',
        value: 1,
        attributes: {
          'gen_ai.agent.name': 'support-bot',
          'gen_ai.provider.name': 'anthropic',
          'gen_ai.request.model': 'claude-sonnet',
        },
      },
    ]);
    expect(await h.points('agent.compaction.circuit_breaker.opened')).toMatchObject([
      { value: 1, attributes: { 'gen_ai.agent.name': 'support-bot' } },
    ]);
  });

  it('never puts a run id, call id, session id or free text on a metric', async () => {
    const forbidden = [
      RUN_A,
      RUN_B,
      'call_1',
      'x',
      '3f2b8c1d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
      'boom',
      'doom loop detected',
    ];
    for (const metric of await h.metrics()) {
      for (const point of metric.dataPoints) {
        for (const value of Object.values(point.attributes)) expect(forbidden).not.toContain(value);
      }
    }
  });
});
