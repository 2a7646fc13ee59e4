// Sinks that write to one meter provider (one per stream, or a library user's several) report
// through one set of observable instruments: each group of open runs and each event outcome is
// one data point with the sum of every sink's share, never two points of one attribute set (an
// exporter would keep one of them), and a sink shut down leaves the gauges.
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import type { DataPoint } from '@opentelemetry/sdk-metrics';
import { TracerProvider } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { createBridgeSink } from '../../src/sink/bridge-sink.js';
import { behest, RUN_A, RUN_B } from '../helpers/behest-lines.js';
import { ManualReader } from '../helpers/harness.js';

const NOW = Date.UTC(2025, 5, 1, 12, 1, 30);

describe('sinks sharing a meter provider', () => {
  it('report one point per attribute set, summed over the sinks, and a sink shut down leaves the gauges', async () => {
    const reader = new ManualReader();
    const meterProvider = new MeterProvider({ readers: [reader] });
    const sink = () =>
      createBridgeSink({
        tracerProvider: new TracerProvider(),
        meterProvider,
        env: {},
        reorderWindowMillis: 0,
        lateGraceMillis: 0,
        agentName: 'coder',
        now: () => NOW,
      });
    const [a, b] = [sink(), sink()];
    const open = (runId: string, second: string, input: number) => [
      behest('RunStarted', runId, second, { provider: 'openai', model: 'gpt-4o' }),
      behest('UsageRecorded', runId, `${second.slice(0, 2)}.500`, {
        usage: { input_tokens: input, output_tokens: 1, total_tokens: input + 1 },
      }),
    ];
    for (const line of open(RUN_A, '00.000', 10)) a.handleJson(line);
    for (const line of open(RUN_B, '30.000', 20)) b.handleJson(line);
    b.handleJson('not json');
    const points = async (name: string) => {
      const { resourceMetrics } = await reader.collect();
      return resourceMetrics.scopeMetrics
        .flatMap((s) => s.metrics)
        .filter((m) => m.descriptor.name === name)
        .flatMap((m) => m.dataPoints as DataPoint<number>[]);
    };
    const byOutcome = async () =>
      Object.fromEntries(
        (await points('agent_bridge.events')).map((p) => [
          String(p.attributes['agent_bridge.event.outcome']),
          p.value,
        ]),
      );
    expect((await points('agent.runs.open')).map((p) => p.value)).toEqual([2]);
    expect((await points('agent.runs.open.oldest_age')).map((p) => p.value)).toEqual([90]);
    const tokens = (await points('agent.runs.open.tokens')).filter(
      (p) => p.attributes['gen_ai.token.type'] === 'input',
    );
    expect(tokens.map((p) => p.value)).toEqual([30]);
    expect(await byOutcome()).toEqual({ accepted: 4, rejected: 1 });
    // Shut down without ending its runs: it no longer reports them.
    await a.shutdown({ endOpenRuns: false });
    expect((await points('agent.runs.open')).map((p) => p.value)).toEqual([1]);
    expect((await points('agent.runs.open.oldest_age')).map((p) => p.value)).toEqual([60]);
    await b.shutdown();
  });

  it('count a limit hit by either sink in one agent_bridge.limits.hit point', async () => {
    const reader = new ManualReader();
    const meterProvider = new MeterProvider({ readers: [reader] });
    const sinks = [0, 1].map(() =>
      createBridgeSink({
        tracerProvider: new TracerProvider(),
        meterProvider,
        env: {},
        reorderWindowMillis: 0,
        lateGraceMillis: 0,
        now: () => NOW,
      }),
    );
    // A model name that is not a name's shape: exported as its digest, counted as a limit hit.
    sinks[0]!.handleJson(
      behest('RunStarted', RUN_A, '00.000', { provider: 'openai', model: 'gpt 4o' }),
    );
    sinks[1]!.handleJson(
      behest('RunStarted', RUN_B, '00.000', { provider: 'openai', model: 'o 3' }),
    );
    sinks[1]!.handleJson(behest('RunStarted', 'run-c', '00.000', { provider: 'x y', model: 'o3' }));
    const { resourceMetrics } = await reader.collect();
    const points = resourceMetrics.scopeMetrics
      .flatMap((s) => s.metrics)
      .filter((m) => m.descriptor.name === 'agent_bridge.limits.hit')
      .flatMap((m) => m.dataPoints as DataPoint<number>[]);
    expect(points.map((p) => [p.attributes['agent_bridge.limit'], p.value])).toEqual([
      ['identifier_shape', 3],
    ]);
    for (const sink of sinks) await sink.shutdown();
  });
});
