// With the latest-conventions switch on, every metric and attribute of the GenAI conventions'
// standalone release v0.1.0 that the bridge can fill is emitted as the release defines it: name,
// instrument, unit and required attributes, checked against an extract of the release's registry
// (test/fixtures/conventions/genai-v0.1.0.json). The v1.41 names stay beside them.
import { readFileSync } from 'node:fs';
import { DataPointType } from '@opentelemetry/sdk-metrics';
import { describe, expect, it } from 'vitest';
import { behest, RUN_A, RUN_B, SESSION, toolRun } from '../helpers/behest-lines.js';
import { createHarness } from '../helpers/harness.js';
import type { Harness } from '../helpers/harness.js';

interface MetricDefinition {
  readonly name: string;
  readonly instrument: 'counter' | 'histogram';
  readonly unit: string;
  readonly required: readonly string[];
  readonly conditionally: readonly string[];
  readonly recommended?: readonly string[];
}
interface Release {
  readonly metrics: readonly MetricDefinition[];
  readonly not_filled: Record<string, string>;
  readonly attributes: readonly string[];
  readonly deprecated_kept_during_transition: Record<string, string>;
  readonly removed_from_invoke_agent_internal: readonly string[];
  readonly draft: Record<string, string>;
}
const RELEASE = JSON.parse(
  readFileSync(new URL('../fixtures/conventions/genai-v0.1.0.json', import.meta.url), 'utf8'),
) as Release;

/** Attributes the bridge adds to a release metric beyond the release's list (telemetry-contract.md). */
const EXTRA: Record<string, readonly string[]> = {
  'gen_ai.invoke_agent.duration': ['gen_ai.provider.name'],
  'gen_ai.invoke_agent.inference_calls': ['gen_ai.provider.name'],
  'gen_ai.invoke_agent.tool_calls': ['gen_ai.provider.name'],
};

/** A tool run with cached and streamed output, a failing run, and reasoning tokens (library). */
async function latest(): Promise<Harness> {
  const h = createHarness({ agentName: 'support-bot', genAiConventions: 'latest' });
  const lines = toolRun().map((line) =>
    line.includes('"input_tokens":412')
      ? line.replace(
          '"total_tokens":449',
          '"total_tokens":449,"cache_read_input_tokens":300,"cache_creation_input_tokens":20',
        )
      : line,
  );
  // A second chunk in the first call, for the time per output chunk.
  const delta = lines.findIndex((l) => l.includes('TextDelta'));
  lines.splice(delta + 1, 0, behest('TextDelta', RUN_A, '00.750', { delta: 'the weather.' }));
  h.feed(lines.join('\n'));
  h.feed(
    [
      behest('RunStarted', RUN_B, '30.000', {
        session_id: SESSION,
        provider: 'openai',
        model: 'o3',
      }),
      behest('ModelStarted', RUN_B, '30.100', { provider: 'openai', model: 'o3', iteration: 1 }),
      behest('RunFailed', RUN_B, '31.000', { error: 'provider error: 500' }),
    ].join('\n'),
  );
  const t = (s: number): [number, number] => [1_750_000_000 + s, 0];
  h.sink.handle({
    type: 'RunStarted',
    runId: 'lib-run',
    time: t(0),
    provider: 'openai',
    model: 'o3',
  });
  h.sink.handle({ type: 'ModelStarted', runId: 'lib-run', time: t(1), iteration: 1 });
  h.sink.handle({
    type: 'UsageRecorded',
    runId: 'lib-run',
    time: t(2),
    usage: { inputTokens: 50, outputTokens: 500, reasoningOutputTokens: 320 },
  });
  h.sink.handle({ type: 'AssistantMessageCommitted', runId: 'lib-run', time: t(3) });
  h.sink.handle({ type: 'RunCompleted', runId: 'lib-run', time: t(4) });
  await h.sink.shutdown();
  return h;
}

describe('GenAI conventions v0.1.0 (latest switch on)', () => {
  it('emits every metric of the release the bridge can fill, as the release defines it', async () => {
    const h = await latest();
    const metrics = await h.metrics();
    for (const definition of RELEASE.metrics) {
      const metric = metrics.find((m) => m.descriptor.name === definition.name);
      expect(metric, definition.name).toBeDefined();
      expect(metric!.descriptor.unit, definition.name).toBe(definition.unit);
      expect(metric!.dataPointType, definition.name).toBe(
        definition.instrument === 'counter' ? DataPointType.SUM : DataPointType.HISTOGRAM,
      );
      // A counter is a monotonic sum.
      if (metric!.dataPointType === DataPointType.SUM)
        expect(metric!.isMonotonic, definition.name).toBe(true);
      expect(metric!.dataPoints.length, definition.name).toBeGreaterThan(0);
      const allowed = new Set([
        ...definition.required,
        ...definition.conditionally,
        ...(definition.recommended ?? []),
      ]);
      for (const point of metric!.dataPoints) {
        for (const key of definition.required)
          expect(point.attributes[key], `${definition.name} ${key}`).toBeDefined();
        // Release attributes only, besides the bridge's own namespace (agent.*) and the
        // provider on run metrics (documented: runs are grouped by provider too).
        for (const key of Object.keys(point.attributes))
          if (!key.startsWith('agent.'))
            expect(
              allowed.has(key) || (EXTRA[definition.name] ?? []).includes(key),
              `${definition.name} ${key}`,
            ).toBe(true);
      }
    }
    for (const name of Object.keys(RELEASE.not_filled))
      if (name !== 'gen_ai.client.operation.duration')
        expect(
          metrics.some((m) => m.descriptor.name === name),
          name,
        ).toBe(false);
  });

  it('counts usage as the release says: subsets within their totals, reasoning and cache included', async () => {
    const h = await latest();
    const sum = (name: string, model: string) =>
      h.sum(name, { 'gen_ai.request.model': model, 'gen_ai.token.modality': 'unknown' });
    expect(await sum('gen_ai.client.inference.usage.input_tokens', 'gpt-4o-mini')).toBe(912);
    expect(await sum('gen_ai.client.inference.usage.cache_read.input_tokens', 'gpt-4o-mini')).toBe(
      300,
    );
    expect(await sum('gen_ai.client.inference.usage.cache_write.input_tokens', 'gpt-4o-mini')).toBe(
      20,
    );
    expect(await sum('gen_ai.client.inference.usage.output_tokens', 'o3')).toBe(500);
    expect(await sum('gen_ai.client.inference.usage.reasoning.output_tokens', 'o3')).toBe(320);
    // The failed run's call reported nothing: 0 under modality `unknown`, as the release asks.
    const failed = (await h.points('gen_ai.client.inference.operation.input_tokens')).filter(
      (p) => p.attributes['error.type'] !== undefined,
    );
    expect(failed.map((p) => (p.value as { sum: number }).sum)).toEqual([0]);
    // One point per later chunk: the first call streamed two chunks, 50 ms apart.
    const chunks = await h.points('gen_ai.client.inference.time_per_output_chunk');
    expect(chunks.map((p) => (p.value as { count: number; sum: number }).count)).toEqual([1]);
    expect((chunks[0]!.value as { sum: number }).sum).toBeCloseTo(0.05, 9);
    // The v1.41 names beside them during the transition.
    expect(await h.sum('gen_ai.client.token.usage')).toBeGreaterThan(0);
    expect(await h.sum('gen_ai.client.operation.duration')).toBe(
      await h.sum('gen_ai.client.inference.duration'),
    );
  });

  it('puts only the release registry, the draft cost names and its own namespace on spans', async () => {
    const h = await latest();
    const known = new Set([
      ...RELEASE.attributes,
      ...Object.keys(RELEASE.deprecated_kept_during_transition),
      ...Object.keys(RELEASE.draft),
    ]);
    for (const span of h.spans())
      for (const key of Object.keys(span.attributes))
        if (!key.startsWith('agent.')) expect(known.has(key), `${span.name}: ${key}`).toBe(true);
    const runs = h.spans().filter((s) => s.name.startsWith('invoke_agent'));
    for (const key of RELEASE.removed_from_invoke_agent_internal)
      for (const run of runs) expect(run.attributes[key], `${run.name}: ${key}`).toBeUndefined();
    const tool = h.spans().find((s) => s.name.startsWith('execute_tool'))!;
    expect(tool.attributes['gen_ai.agent.name']).toBe('support-bot');
    const reasoning = h
      .spans()
      .find((s) => s.attributes['gen_ai.usage.reasoning.output_tokens'] === 320);
    expect(reasoning?.name).toBe('chat o3');
  });
});
