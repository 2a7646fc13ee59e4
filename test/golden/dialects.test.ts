import { describe, expect, it } from 'vitest';
import type { HandleResult } from '../../src/index.js';
import { fixture, steadyClock } from '../helpers/fixture-logs.js';
import { createHarness, toSpanTree } from '../helpers/harness.js';
import type { Harness } from '../helpers/harness.js';

function feedStream(h: Harness, scope: string, lines: readonly string[]): HandleResult[] {
  const stream = h.sink.openStream(scope);
  return lines.map((line) => stream.handleJson(line));
}

const BEHEST_METRICS = [
  'gen_ai.client.token.usage',
  'gen_ai.client.operation.duration',
  'gen_ai.invoke_agent.duration',
  'gen_ai.execute_tool.duration',
  'agent.runs',
  'agent.runs.active',
  'agent.iterations',
  'agent.tool.calls',
  'agent_bridge.events',
];

/** Latency histograms: recorded only for runs the runtime timed itself. */
const LATENCIES = [
  'gen_ai.client.operation.duration',
  'gen_ai.client.operation.time_to_first_chunk',
  'gen_ai.invoke_agent.duration',
  'gen_ai.execute_tool.duration',
];

describe.each([
  // The runtime sends no times: the bridge stamps arrival, which says nothing of latency.
  ['oxi', 'oxi/agent-loop.ndjson', 'arrival'],
  ['oxi', 'oxi/legacy.ndjson', 'arrival'],
  ['agent-sdk', 'agent-sdk/run.ndjson', 'arrival'],
  ['agent-sdk', 'agent-sdk/envelope.ndjson', 'runtime'],
  ['crabtalk', 'crabtalk/run.ndjson', 'arrival'],
])('%s golden run %s', (dialect, path, timedBy) => {
  const h = createHarness({ agentName: 'golden', now: steadyClock() });
  const results = feedStream(h, path, fixture(path));
  h.sink.endOpenRuns('end_of_input');

  it('accepts every line as its dialect', () => {
    expect(results.filter((r) => r.outcome !== 'accepted')).toEqual([]);
    expect(new Set(results.map((r) => r.dialect))).toEqual(new Set([dialect]));
  });

  it('produces the contract span tree', () => {
    expect(toSpanTree(h.spans())).toMatchSnapshot();
  });

  it('records the same metric names as behest, latencies only for times the runtime sent', async () => {
    const names = new Set((await h.metrics()).map((m) => m.descriptor.name));
    for (const name of BEHEST_METRICS)
      if (timedBy === 'runtime' || !LATENCIES.includes(name)) expect(names).toContain(name);
    for (const name of LATENCIES)
      if (timedBy === 'arrival') expect(names.has(name), name).toBe(false);
    for (const name of names) expect(name).toMatch(/^(gen_ai|agent|agent_bridge)\./);
  });
});

describe('every documented variant', () => {
  it.each(['oxi', 'agent-sdk', 'crabtalk', 'behest'])(
    '%s: no line rejected, none left undetected',
    (dialect) => {
      const h = createHarness({ now: steadyClock() });
      const results = feedStream(h, dialect, fixture(`${dialect}/variants.ndjson`));
      expect(results.filter((r) => r.outcome === 'rejected')).toEqual([]);
      expect(new Set(results.map((r) => r.dialect))).toEqual(new Set([dialect]));
    },
  );
});

describe('runs without run ids', () => {
  const runIds = (scope: string, lines: readonly string[]) => {
    const h = createHarness({ now: steadyClock() });
    feedStream(h, scope, lines);
    h.sink.endOpenRuns();
    return h
      .spans()
      .filter((s) => s.name === 'invoke_agent')
      .map((s) => ({
        runId: String(s.attributes['agent.run.id']),
        traceId: s.spanContext().traceId,
        conversation: s.attributes['gen_ai.conversation.id'],
      }));
  };

  it('names runs after what the runtime emitted, not after the stream, a counter or the process', () => {
    const log = fixture('oxi/agent-loop.ndjson');
    const a = runIds('agent-a.ndjson', log);
    // The same log under another name, from another process (a new harness): the same ids.
    expect(runIds('./agent-a.ndjson', log)).toEqual(a);
    expect(runIds('stdin', log)).toEqual(a);
    expect(a).toHaveLength(8);
    expect(new Set(a.map((r) => r.runId)).size).toBe(8);
    for (const run of a) {
      expect(run.runId).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );
      expect(run.traceId).toBe(run.runId.replaceAll('-', ''));
    }
    expect(a.find((r) => r.conversation !== undefined)?.conversation).toBe('sess-1');
    // A different log never shares an id with it.
    const other = log.map((line) => line.replaceAll('sess-', 'session-'));
    const b = runIds('agent-a.ndjson', other);
    expect(b.filter((r) => a.some((x) => x.runId === r.runId))).toEqual([]);
  });

  it('names a run with runtime timestamps after its own first event, wherever its stream starts', () => {
    const log = fixture('agent-sdk/envelope.ndjson');
    const [alone] = runIds('one', log);
    const [afterOthers] = runIds('two', [...fixture('agent-sdk/run.ndjson'), ...log]).slice(-1);
    expect(afterOthers).toEqual(alone);
    expect(alone?.conversation).toBe('t-9');
  });

  it('times them by arrival, strictly increasing', () => {
    const h = createHarness({ now: () => Date.UTC(2025, 5, 1, 12) });
    feedStream(h, 's', fixture('agent-sdk/run.ndjson').slice(0, 4));
    h.sink.endOpenRuns();
    const tool = h.spans().find((s) => s.name === 'execute_tool get_balance');
    expect(tool?.startTime).toEqual([1748779200, 2]);
    expect(tool?.endTime).toEqual([1748779200, 3]);
  });

  it('uses the envelope timestamps of agent-sdk v0.5 when present', () => {
    const h = createHarness();
    feedStream(h, 's', fixture('agent-sdk/envelope.ndjson'));
    const run = h.spans().find((s) => s.name === 'invoke_agent');
    expect(run?.startTime).toEqual([1775037600, 0]);
    expect(run?.endTime).toEqual([1775037601, 1]);
    expect(h.spans().find((s) => s.name === 'execute_tool search')?.startTime).toEqual([
      1775037600, 500_000_000,
    ]);
  });
});

describe('runtime-specific facts', () => {
  it('oxi: usage and cost from the assistant message, cache reads, retries and compaction as events', () => {
    const h = createHarness({ now: steadyClock() });
    feedStream(h, 'oxi', fixture('oxi/agent-loop.ndjson'));
    const chat = h
      .spans()
      .find(
        (s) =>
          s.name === 'chat claude-sonnet-4-20250514' &&
          s.attributes['agent.iteration.number'] === 1,
      );
    expect(chat?.attributes).toMatchObject({
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.usage.input_tokens': 1200,
      'gen_ai.usage.output_tokens': 45,
      'gen_ai.usage.cache_read.input_tokens': 300,
      'gen_ai.response.finish_reasons': ['tool_calls'],
      'oxi.cost.input': 0.0012,
      'oxi.api': 'anthropic-messages',
    });
    // The runs, by when their events arrived (the log is one stream).
    const runs = h
      .spans()
      .filter((s) => s.name === 'invoke_agent')
      .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
    expect(runs[6]?.events.map((e) => [e.name, e.attributes?.['oxi.compaction.kind']])).toEqual([
      ['oxi.compaction', 'triggered'],
      ['oxi.compaction', 'started'],
      ['oxi.compaction', 'completed'],
      ['oxi.steering_message', undefined],
    ]);
    const bash = h
      .spans()
      .find(
        (s) => s.name === 'execute_tool bash' && s.attributes['agent.tool.outcome'] === 'failure',
      );
    // The failure text is the tool's output: content, so not exported with capture off.
    expect(bash?.status).toEqual({ code: 2 });
    expect(bash?.attributes['oxi.tool.intent']).toBe('build the crate');
  });

  it('agent-sdk: tool tiers, PIN and confirmation requests, retries and non-recoverable errors', () => {
    const h = createHarness({ now: steadyClock() });
    feedStream(h, 'sdk', fixture('agent-sdk/run.ndjson'));
    h.sink.endOpenRuns();
    const pix = h.spans().find((s) => s.name === 'execute_tool send_pix');
    expect(pix?.attributes['agent_sdk.tool.tier']).toBe('RequiresPin');
    expect(pix?.events.map((e) => e.name)).toEqual(['agent_sdk.tool.pin_required']);
    const runs = h.spans().filter((s) => s.name === 'invoke_agent');
    expect(
      runs.map((s) => [s.attributes['agent.run.outcome'], s.attributes['error.type']]),
    ).toEqual([
      ['completed', undefined],
      ['failed', 'provider'],
    ]);
    expect(runs[0]?.attributes['agent_sdk.run.duration']).toBe(4.512);
    expect(runs[0]?.events.map((e) => e.name)).toEqual([
      'agent_sdk.context_compacted',
      'agent_sdk.retry',
    ]);
    expect(runs[1]?.status.message).toBe('provider error: 401 invalid api key [REDACTED]');
    const chats = h.spans().filter((s) => s.name === 'chat');
    expect(
      chats.map((c) => [
        c.attributes['agent.iteration.number'],
        c.attributes['gen_ai.usage.input_tokens'],
      ]),
    ).toEqual([
      [1, 1520],
      [2, 1580],
      [1, undefined],
    ]);
  });

  it('crabtalk: usage and finish reasons filled from Done, per step', () => {
    const h = createHarness({ now: steadyClock() });
    feedStream(h, 'crab', fixture('crabtalk/run.ndjson'));
    const chats = h.spans().filter((s) => s.name === 'chat deepseek-chat');
    expect(
      chats.map((c) => [
        c.attributes['agent.iteration.number'],
        c.attributes['gen_ai.usage.input_tokens'],
        c.attributes['gen_ai.response.finish_reasons'],
      ]),
    ).toEqual([
      [1, 900, ['tool_calls']],
      [2, 990, ['stop']],
      [1, 100, ['stop']],
      [1, undefined, undefined],
    ]);
    expect(chats[0]?.attributes['gen_ai.usage.cache_read.input_tokens']).toBe(512);
    const runs = h.spans().filter((s) => s.name === 'invoke_agent');
    expect(
      runs.map((s) => [s.attributes['agent.run.outcome'], s.attributes['crabtalk.stop_reason']]),
    ).toEqual([
      ['completed', 'text_response'],
      ['failed', 'error'],
      ['cancelled', 'cancelled'],
    ]);
    expect(runs[1]?.status.message).toBe(
      'provider error: 500 from https://user:[REDACTED]@api.example',
    );
  });
});

describe('auto-detection', () => {
  it('locks each stream to its own dialect when one input mixes all four across streams', async () => {
    const h = createHarness({ now: steadyClock() });
    const files = [
      'behest/tools-success-failure.ndjson',
      'oxi/agent-loop.ndjson',
      'agent-sdk/run.ndjson',
      'crabtalk/run.ndjson',
    ];
    const results = files.map((f) => feedStream(h, f, fixture(f)));
    expect(results.map((r) => [...new Set(r.map((x) => `${x.dialect}:${x.outcome}`))])).toEqual([
      ['behest:accepted'],
      ['oxi:accepted'],
      ['agent-sdk:accepted'],
      ['crabtalk:accepted'],
    ]);
    for (const dialect of ['behest', 'oxi', 'agent-sdk', 'crabtalk']) {
      expect(
        await h.sum('agent_bridge.events', {
          'agent_bridge.dialect': dialect,
          'agent_bridge.event.outcome': 'accepted',
        }),
      ).toBeGreaterThan(0);
    }
  });

  it('tells oxi and agent-sdk apart on their shared types by the fields', () => {
    const h = createHarness();
    const decide = (line: string) => h.sink.openStream('s').handleJson(line).dialect;
    expect(decide('{"type":"start","prompt":"hi"}')).toBe('oxi');
    expect(decide('{"type":"start","thread_id":"t","turn":1}')).toBe('agent-sdk');
    expect(decide('{"type":"thinking"}')).toBe('oxi');
    expect(decide('{"type":"thinking","text":"hm"}')).toBe('agent-sdk');
    expect(decide('{"type":"error","message":"x","session_id":null}')).toBe('oxi');
    expect(decide('{"type":"error","message":"x","recoverable":false}')).toBe('agent-sdk');
  });

  it('rejects an undecidable line naming the candidates, and decides it once the stream is locked', () => {
    const h = createHarness();
    const stream = h.sink.openStream('s');
    expect(stream.handleJson('{"type":"start"}')).toMatchObject({
      outcome: 'rejected',
      reason: 'undetected_dialect',
      message: 'cannot tell which dialect this line is: it fits oxi and agent-sdk',
    });
    expect(stream.dialect).toBeUndefined();
    stream.handleJson('{"type":"turnStart","turn_number":1}');
    expect(stream.dialect).toBe('oxi');
    expect(stream.handleJson('{"type":"start"}')).toMatchObject({
      dialect: 'oxi',
      outcome: 'rejected',
      path: 'start.prompt',
    });
  });
});
