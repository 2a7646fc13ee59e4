// The live view of runs in progress: the open-run gauges and the list `GET /runs` serves.
import { describe, expect, it } from 'vitest';
import { behest, RUN_A, RUN_B, toolRun } from '../helpers/behest-lines.js';
import { createHarness } from '../helpers/harness.js';

const RUN_C = '0190f3a2-7c4e-4b8a-9d2e-5f6a7b8c9d10';
// The harness's behest lines are at 2025-06-01T12:00:SSZ; "now" is 90 s after that minute began.
const NOW = Date.UTC(2025, 5, 1, 12, 1, 30);

function openTwoRuns() {
  const h = createHarness({ agentName: 'planner', now: () => NOW });
  const a = toolRun(RUN_A);
  h.feed(a.slice(0, 8).join('\n')); // first call committed, its tool not started yet
  h.feed(
    [
      behest('RunStarted', RUN_B, '30.000', { provider: 'anthropic', model: 'claude' }),
      behest('ModelStarted', RUN_B, '30.100', { iteration: 1 }),
      behest('UsageRecorded', RUN_B, '30.500', {
        usage: { input_tokens: 100, output_tokens: 5, total_tokens: 105 },
      }),
    ].join('\n'),
  );
  h.feed(toolRun(RUN_C).join('\n')); // finished: not in the view
  return h;
}

describe('open runs', () => {
  it('lists each run in progress, oldest first, with its progress', () => {
    const h = openTwoRuns();
    const { open, runs } = h.sink.openRuns(10);
    expect(open).toBe(2);
    expect(runs).toEqual([
      {
        runId: RUN_A,
        dialect: 'behest',
        agent: 'planner',
        provider: 'openai',
        model: 'gpt-4o-mini',
        startedAt: '2025-06-01T12:00:00.000000000Z',
        ageSeconds: 90,
        iteration: 1,
        inputTokens: 412,
        outputTokens: 37,
        // Its first call settled: priced (gpt-4o-mini, $0.15 / $0.60 per million tokens).
        costUsd: expect.closeTo((412 * 0.15 + 37 * 0.6) / 1e6, 15) as number,
        lastEvent: 'AssistantMessageCommitted',
        lastEventAt: '2025-06-01T12:00:01.000000000Z',
        toolsRunning: 0,
      },
      expect.objectContaining({
        runId: RUN_B,
        ageSeconds: 60,
        iteration: 1,
        inputTokens: 100,
        lastEvent: 'UsageRecorded',
      }),
    ]);
    expect(h.sink.openRuns(1).runs.map((r) => r.runId)).toEqual([RUN_A]);
  });

  it('reports the open runs by agent and model: count, oldest age, tokens so far', async () => {
    const h = openTwoRuns();
    const open = await h.points('agent.runs.open');
    expect(open.map((p) => [p.attributes['gen_ai.request.model'], p.value]).sort()).toEqual([
      ['claude', 1],
      ['gpt-4o-mini', 1],
    ]);
    expect(open.every((p) => p.attributes['gen_ai.agent.name'] === 'planner')).toBe(true);
    const oldest = await h.points('agent.runs.open.oldest_age');
    expect(oldest.find((p) => p.attributes['gen_ai.request.model'] === 'gpt-4o-mini')?.value).toBe(
      90,
    );
    const tokens = await h.points('agent.runs.open.tokens');
    expect(
      tokens
        .filter((p) => p.attributes['gen_ai.request.model'] === 'claude')
        .map((p) => [p.attributes['gen_ai.token.type'], p.value])
        .sort(),
    ).toEqual([
      ['input', 100],
      ['output', 5],
    ]);
    // When the runs end, their groups read 0.
    h.sink.endOpenRuns();
    expect((await h.points('agent.runs.open')).map((p) => p.value)).toEqual([0, 0]);
    expect((await h.points('agent.runs.open.tokens')).map((p) => p.value)).toEqual([0, 0, 0, 0]);
  });

  it('leaves out what a run did not say (agent, provider, model, cost) and counts the tools running', () => {
    const h = createHarness({ now: () => NOW });
    h.feed(
      [
        behest('RunStarted', RUN_A, '10.000'),
        behest('ModelStarted', RUN_A, '10.100', { iteration: 3 }),
        behest('ToolExecutionStarted', RUN_A, '10.200', { call_id: 'c1', tool_name: 'grep' }),
        behest('ToolExecutionStarted', RUN_A, '10.300', { call_id: 'c2', tool_name: 'ls' }),
      ].join('\n'),
    );
    // Strictly: a field left out is not there at all (`GET /runs` is JSON; no nulls, no holes).
    expect(h.sink.openRuns(10).runs).toStrictEqual([
      {
        runId: RUN_A,
        dialect: 'behest',
        startedAt: '2025-06-01T12:00:10.000000000Z',
        ageSeconds: 80,
        iteration: 3,
        inputTokens: 0,
        outputTokens: 0,
        lastEvent: 'ToolExecutionStarted',
        lastEventAt: '2025-06-01T12:00:10.300000000Z',
        toolsRunning: 2,
      },
    ]);
  });

  it('groups runs of one agent, provider and model, and keeps apart those that differ in any', async () => {
    const h = createHarness({ now: () => NOW });
    const start = (runId: string, second: string, provider: string, model: string) =>
      behest('RunStarted', runId, second, { provider, model });
    const usage = (runId: string, second: string, input: number) =>
      behest('UsageRecorded', runId, second, {
        usage: { input_tokens: input, output_tokens: 1, total_tokens: input + 1 },
      });
    h.feed(
      [
        start(RUN_A, '00.000', 'openai', 'gpt-4o'),
        usage(RUN_A, '00.500', 10),
        start(RUN_B, '30.000', 'openai', 'gpt-4o'),
        usage(RUN_B, '30.500', 20),
        // The same model name from another provider, and another model of the same provider.
        start(RUN_C, '40.000', 'azure', 'gpt-4o'),
        start('0190f3a2-7c4e-4b8a-9d2e-5f6a7b8c9d11', '50.000', 'openai', 'gpt-4o-mini'),
      ].join('\n'),
    );
    const groups = (await h.points('agent.runs.open')).map((p) => [
      p.attributes['gen_ai.provider.name'],
      p.attributes['gen_ai.request.model'],
      p.value,
    ]);
    expect(groups.sort()).toEqual([
      ['azure', 'gpt-4o', 1],
      ['openai', 'gpt-4o', 2],
      ['openai', 'gpt-4o-mini', 1],
    ]);
    const shared = (points: Awaited<ReturnType<typeof h.points>>) =>
      points.filter(
        (p) =>
          p.attributes['gen_ai.provider.name'] === 'openai' &&
          p.attributes['gen_ai.request.model'] === 'gpt-4o',
      );
    // The group's oldest run is RUN_A (90 s); its tokens are both runs'.
    expect(shared(await h.points('agent.runs.open.oldest_age')).map((p) => p.value)).toEqual([90]);
    expect(
      shared(await h.points('agent.runs.open.tokens'))
        .filter((p) => p.attributes['gen_ai.token.type'] === 'input')
        .map((p) => p.value),
    ).toEqual([30]);
  });
});
