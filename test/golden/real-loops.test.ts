// Multi-run logs in the order each runtime's own loop emits them (the scenarios its loop can
// produce), one trace per run with the right iterations, tools, outcome and token totals. The
// expectations are read off the loops: agent-sdk v0.3.0 `src/agent_loop.rs` (`run_loop`,
// `AgentLoop::run`); oxi `oxi-agent/src/agent_loop/{mod,streaming,retry}.rs` (AgentLoop) and
// `oxi-agent/src/agent.rs` (`run_with_channel`, the legacy vocabulary); crabtalk
// `crates/core/src/agent/mod.rs` (`Agent::run_stream`).
import { readdirSync } from 'node:fs';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import type { AgentOtelSinkOptions, InputDialect } from '../../src/index.js';
import { fixture, INGEST_WINDOWS, steadyClock } from '../helpers/fixture-logs.js';
import { createHarness, toSpanTree } from '../helpers/harness.js';

function feed(path: string, dialect?: InputDialect, options: AgentOtelSinkOptions = {}) {
  const h = createHarness({ now: steadyClock(), ...INGEST_WINDOWS, ...options });
  const stream = h.sink.openStream(path, dialect);
  const results = fixture(path).map((line) => stream.handleJson(line));
  h.sink.endOpenRuns('end_of_input');
  return { h, results };
}

interface RunView {
  readonly conversation: unknown;
  readonly outcome: unknown;
  readonly errorType: unknown;
  readonly iterations: unknown;
  readonly tokens: readonly [unknown, unknown];
  readonly chats: readonly (readonly [unknown, unknown])[];
  readonly tools: readonly string[];
}

/** The run (root) spans in start order. */
function rootsOf(spans: readonly ReadableSpan[]): ReadableSpan[] {
  return spans
    .filter((s) => s.name.startsWith('invoke_agent') && !isSubagentRun(s))
    .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
}

const isSubagentRun = (s: ReadableSpan) => s.attributes['agent.run.parent_id'] !== undefined;

/** The spans of sub-agent runs (their roots and everything under them): not their parent's. */
function subagentSpans(spans: readonly ReadableSpan[]): Set<string> {
  const under = new Set(spans.filter(isSubagentRun).map((s) => s.spanContext().spanId));
  let grew = true;
  while (grew) {
    grew = false;
    for (const s of spans) {
      const parent = s.parentSpanContext?.spanId;
      if (parent !== undefined && under.has(parent) && !under.has(s.spanContext().spanId)) {
        under.add(s.spanContext().spanId);
        grew = true;
      }
    }
  }
  return under;
}

/** Each run (root span) in start order: what a reader of its trace sees first. */
function runsOf(spans: readonly ReadableSpan[]): RunView[] {
  const subagents = subagentSpans(spans);
  const byTrace = (traceId: string) =>
    spans.filter(
      (s) => s.spanContext().traceId === traceId && !subagents.has(s.spanContext().spanId),
    );
  return rootsOf(spans).map((run) => {
    const trace = byTrace(run.spanContext().traceId);
    const a = run.attributes;
    return {
      conversation: a['gen_ai.conversation.id'],
      outcome: a['agent.run.outcome'],
      errorType: a['error.type'],
      iterations: a['agent.run.iterations'],
      tokens: [a['gen_ai.usage.input_tokens'], a['gen_ai.usage.output_tokens']],
      chats: trace
        .filter((s) => s.name.startsWith('chat'))
        .sort(
          (x, y) =>
            Number(x.attributes['agent.iteration.number']) -
            Number(y.attributes['agent.iteration.number']),
        )
        .map(
          (c) =>
            [
              c.attributes['gen_ai.usage.input_tokens'],
              c.attributes['gen_ai.usage.output_tokens'],
            ] as const,
        ),
      tools: trace
        .filter((s) => s.name.startsWith('execute_tool'))
        // By name, then start: concurrent tools may finish in any order.
        .sort(
          (x, y) =>
            x.name.localeCompare(y.name) ||
            x.startTime[0] - y.startTime[0] ||
            x.startTime[1] - y.startTime[1],
        )
        .map(
          (t) =>
            `${String(t.attributes['gen_ai.tool.name'])}:${String(t.attributes['agent.tool.outcome'])}`,
        ),
    };
  });
}

const T = (n: number) => `0a1b2c3d-0000-4000-8000-00000000000${n}`;

describe('agent-sdk v0.3 loop', () => {
  const { h, results } = feed('agent-sdk/loop.ndjson');

  it('accepts every line', () => {
    expect(results.filter((r) => r.outcome !== 'accepted')).toEqual([]);
  });

  it('gives one trace per run: turns as iterations, the last turn usage from done, loop breaks as failures', () => {
    expect(runsOf(h.spans())).toEqual([
      // A text-only run: no turn_complete, its usage only in done.
      {
        conversation: T(1),
        outcome: 'completed',
        errorType: undefined,
        iterations: 1,
        tokens: [100, 20],
        chats: [[100, 20]],
        tools: [],
      },
      // Two turns: the second turn's usage is the total less the first.
      {
        conversation: T(1),
        outcome: 'completed',
        errorType: undefined,
        iterations: 2,
        tokens: [3100, 240],
        chats: [
          [1520, 88],
          [1580, 152],
        ],
        tools: ['get_balance:success'],
      },
      // PIN and confirmation tools end where they were asked for; a blocked tool and a tool error fail.
      {
        conversation: T(2),
        outcome: 'completed',
        errorType: undefined,
        iterations: 2,
        tokens: [2000, 100],
        chats: [
          [900, 60],
          [1100, 40],
        ],
        tools: ['bash:failure', 'delete_account:failure', 'send_pix:failure', 'write:failure'],
      },
      // Retries that succeed: one run, completed.
      {
        conversation: T(3),
        outcome: 'completed',
        errorType: undefined,
        iterations: 1,
        tokens: [50, 5],
        chats: [[50, 5]],
        tools: [],
      },
      // Rate limited after the retries: error, then done: one run, failed.
      {
        conversation: T(3),
        outcome: 'failed',
        errorType: 'provider',
        iterations: 1,
        tokens: [undefined, undefined],
        chats: [[undefined, undefined]],
        tools: [],
      },
      // Invalid request (not recoverable), then done: one run, failed.
      {
        conversation: T(4),
        outcome: 'failed',
        errorType: 'provider',
        iterations: 1,
        tokens: [undefined, undefined],
        chats: [[undefined, undefined]],
        tools: [],
      },
      // Maximum turns: two turns ran, then error and done.
      {
        conversation: T(5),
        outcome: 'failed',
        errorType: 'max_iterations',
        iterations: 2,
        tokens: [640, 62],
        chats: [
          [300, 30],
          [340, 32],
        ],
        tools: ['grep:success', 'grep:success'],
      },
      // Compaction and a subagent inside a tool.
      {
        conversation: T(6),
        outcome: 'completed',
        errorType: undefined,
        iterations: 2,
        tokens: [45100, 110],
        chats: [
          [22500, 70],
          [22600, 40],
        ],
        tools: ['explore:success'],
      },
      // An error the loop returned: no done; the next start is a new run.
      {
        conversation: T(7),
        outcome: 'failed',
        errorType: 'provider',
        iterations: 1,
        tokens: [undefined, undefined],
        chats: [[undefined, undefined]],
        tools: [],
      },
      {
        conversation: T(7),
        outcome: 'completed',
        errorType: undefined,
        iterations: 1,
        tokens: [80, 9],
        chats: [[80, 9]],
        tools: [],
      },
      // A run that never ends.
      {
        conversation: T(8),
        outcome: 'abandoned',
        errorType: 'abandoned',
        iterations: 1,
        tokens: [undefined, undefined],
        chats: [[undefined, undefined]],
        tools: [],
      },
    ]);
  });

  it('keeps the runtime facts: tiers, PIN and confirmation requests, retries, compaction, subagent progress', () => {
    const spans = h.spans();
    const pix = spans.find((s) => s.name === 'execute_tool send_pix');
    expect(pix?.attributes['agent_sdk.tool.tier']).toBe('RequiresPin');
    expect(pix?.events.map((e) => e.name)).toEqual(['agent_sdk.tool.pin_required']);
    expect(pix?.status.message).toBe('Awaiting PIN verification');
    expect(spans.find((s) => s.name === 'execute_tool write')?.status.message).toBe(
      'Awaiting user confirmation',
    );
    const retried = runsOf(spans).findIndex((r) => r.conversation === T(3));
    const roots = rootsOf(spans);
    expect(roots[retried]?.events.filter((e) => e.name === 'agent_sdk.retry')).toHaveLength(2);
    expect(roots[retried]?.attributes['agent_sdk.run.duration']).toBe(3.3);
    expect(roots[retried + 1]?.status.message).toBe('Rate limited after 2 retries');
    // The done after Invalid request still belongs to its (failed) run.
    const invalid = roots.find((r) => r.attributes['gen_ai.conversation.id'] === T(4));
    expect(invalid?.status.message).toBe('Invalid request: prompt is too long');
    expect(invalid?.attributes['agent_sdk.run.duration']).toBe(0.4);
    const compacted = roots.find((r) => r.attributes['gen_ai.conversation.id'] === T(6));
    expect(compacted?.events.map((e) => e.name)).toEqual(['agent_sdk.context_compacted']);
  });

  it("makes a sub-agent a run under the spawning tool call, in its parent's trace, with its tools", () => {
    const spans = h.spans();
    const parent = rootsOf(spans).find((r) => r.attributes['gen_ai.conversation.id'] === T(6))!;
    const explore = spans.find((s) => s.name === 'execute_tool explore')!;
    const child = spans.find((s) => s.name === 'invoke_agent explore')!;
    expect(child.spanContext().traceId).toBe(parent.spanContext().traceId);
    expect(child.parentSpanContext?.spanId).toBe(explore.spanContext().spanId);
    expect(child.attributes).toMatchObject({
      'agent.run.parent_id': parent.attributes['agent.run.id'],
      'gen_ai.agent.name': 'explore',
      'agent.run.outcome': 'completed',
      'agent_sdk.subagent.total_tokens': 1400,
    });
    // It ends with the spawning call, inside it.
    expect(child.endTime).toEqual(explore.endTime);
    const glob = spans.find((s) => s.name === 'execute_tool glob')!;
    expect(glob.parentSpanContext?.spanId).toBe(child.spanContext().spanId);
    expect(glob.attributes['agent.tool.outcome']).toBe('success');
    // One trace: a single root, and every span's parent is in it.
    const trace = spans.filter((s) => s.spanContext().traceId === parent.spanContext().traceId);
    const ids = new Set(trace.map((s) => s.spanContext().spanId));
    expect(trace.filter((s) => s.parentSpanContext === undefined)).toEqual([parent]);
    for (const s of trace)
      if (s.parentSpanContext !== undefined)
        expect(ids.has(s.parentSpanContext.spanId), s.name).toBe(true);
  });

  it('gives the same traces with --dialect agent-sdk as with auto-detection', () => {
    const explicit = feed('agent-sdk/loop.ndjson', 'agent-sdk');
    expect(explicit.results.filter((r) => r.outcome !== 'accepted')).toEqual([]);
    expect(toSpanTree(explicit.h.spans())).toEqual(toSpanTree(h.spans()));
  });
});

const U = undefined;
const run = (
  conversation: unknown,
  outcome: string,
  errorType: unknown,
  iterations: unknown,
  tokens: readonly [unknown, unknown],
  chats: readonly (readonly [unknown, unknown])[],
  tools: readonly string[] = [],
): RunView => ({ conversation, outcome, errorType, iterations, tokens, chats, tools });

describe('oxi AgentLoop', () => {
  const { h, results } = feed('oxi/agent-loop.ndjson');

  it('accepts every line', () => {
    expect(results.filter((r) => r.outcome !== 'accepted')).toEqual([]);
  });

  it('gives one trace per run: errors that continue, auto-retries, aborts, steering, runs that never end', () => {
    expect(runsOf(h.spans())).toEqual([
      // Thinking, text and a tool over two turns.
      run(
        'sess-1',
        'completed',
        U,
        2,
        [2500, 57],
        [
          [1200, 45],
          [1300, 12],
        ],
        ['read_file:success'],
      ),
      // A retryable error: error, autoRetryStart, turnEnd, then the same run goes on in turn 2.
      run(
        'sess-1',
        'completed',
        U,
        2,
        [50, 5],
        [
          [0, 0],
          [50, 5],
        ],
      ),
      // Auto-retries exhausted: autoRetryEnd{success:false}, turnEnd, agentEnd{Error}.
      run(
        'sess-2',
        'failed',
        'provider',
        2,
        [0, 0],
        [
          [0, 0],
          [0, 0],
        ],
      ),
      // Not retryable: error, turnEnd, agentEnd{Error}.
      run('sess-2', 'failed', 'provider', 1, [0, 0], [[0, 0]]),
      // The loop's own failure (model not found), with the message it synthesized.
      run(U, 'failed', '_OTHER', 1, [0, 0], [[0, 0]]),
      run('sess-3', 'cancelled', U, 1, [80, 2], [[80, 2]]),
      // Compaction, a failing tool, steering; stopped at max iterations while calling tools.
      run(
        'sess-3',
        'completed',
        U,
        2,
        [220, 22],
        [
          [100, 10],
          [120, 12],
        ],
        ['bash:failure', 'bash:success'],
      ),
      run('sess-4', 'abandoned', 'abandoned', 1, [U, U], [[U, U]]),
    ]);
  });

  it('keeps thinking out of the output, and the run notes', () => {
    const { h: captured } = feed('oxi/agent-loop.ndjson', undefined, { captureContent: true });
    const first = captured.spans().find((s) => s.name.startsWith('chat'));
    expect(JSON.stringify(first?.attributes['gen_ai.output.messages'])).toContain("I'll check.");
    expect(JSON.stringify(first?.attributes['gen_ai.output.messages'])).not.toContain(
      'The user wants',
    );
    const roots = rootsOf(h.spans());
    expect(roots[1]?.events.map((e) => e.name)).toEqual([
      'oxi.error',
      'oxi.auto_retry.start',
      'oxi.auto_retry.end',
    ]);
    expect(roots[2]?.status.message).toBe('429 rate_limit_error');
    expect(roots[4]?.status.message).toBe('Model not found: acme/model-x');
    expect(roots[6]?.events.map((e) => e.name)).toEqual([
      'oxi.compaction',
      'oxi.compaction',
      'oxi.compaction',
      'oxi.steering_message',
    ]);
  });

  it('gives the same traces with --dialect oxi as with auto-detection', () => {
    const explicit = feed('oxi/agent-loop.ndjson', 'oxi');
    expect(toSpanTree(explicit.h.spans())).toEqual(toSpanTree(h.spans()));
  });
});

describe('oxi legacy run_with_channel', () => {
  const { h, results } = feed('oxi/legacy.ndjson');

  it('accepts every line', () => {
    expect(results.filter((r) => r.outcome !== 'accepted')).toEqual([]);
  });

  it('gives one trace per run: iteration counts no run, a fallback continues, other errors end the run', () => {
    expect(runsOf(h.spans())).toEqual([
      // toolComplete alone names no tool: the span says so.
      run(U, 'completed', U, 1, [U, U], [[U, U]], ['unknown:success']),
      run(U, 'completed', U, 1, [1200, 45], [[1200, 45]], ['cat:failure', 'ls:success']),
      // Primary model failed, the fallback answered.
      run(U, 'completed', U, 1, [U, U], [[U, U]]),
      // Primary and fallback failed.
      run(U, 'failed', 'provider', 0, [U, U], []),
      // A stream error ends the run; a `complete` after it (some versions send one) stays with it.
      run(U, 'failed', 'provider', 1, [U, U], [[U, U]]),
      run(U, 'failed', 'provider', 1, [U, U], [[U, U]]),
      run(U, 'completed', U, 1, [U, U], [[U, U]]),
    ]);
  });

  it('gives the same traces with --dialect oxi as with auto-detection', () => {
    const explicit = feed('oxi/legacy.ndjson', 'oxi');
    expect(toSpanTree(explicit.h.spans())).toEqual(toSpanTree(h.spans()));
  });
});

describe('crabtalk run_stream', () => {
  const { h, results } = feed('crabtalk/loop.ndjson');

  it('accepts every line', () => {
    expect(results.filter((r) => r.outcome !== 'accepted')).toEqual([]);
  });

  it('gives one trace per run: steps, calls without ids, stream errors, max iterations, empty answers', () => {
    expect(runsOf(h.spans())).toEqual([
      // Tools (results in completion order), then a text answer.
      run(
        U,
        'completed',
        U,
        2,
        [1890, 72],
        [
          [900, 60],
          [990, 12],
        ],
        ['bash:success', 'read_file:failure'],
      ),
      // A provider without call ids (told apart by index); the second call's stream failed: it has no step.
      run(
        U,
        'failed',
        'provider',
        2,
        [400, 20],
        [
          [400, 20],
          [U, U],
        ],
        ['bash:success', 'bash:success'],
      ),
      // MaxIterations: the model still called tools when the loop stopped.
      run(
        U,
        'failed',
        'max_iterations',
        2,
        [220, 11],
        [
          [100, 5],
          [120, 6],
        ],
        ['grep:success', 'grep:success'],
      ),
      // The stream brought nothing: NoAction, with no step.
      run(U, 'completed', U, 1, [U, U], [[U, U]]),
      // An error before any model call.
      run(U, 'failed', '_OTHER', 0, [U, U], []),
      run(U, 'completed', U, 1, [50, 4], [[50, 4]]),
      run(U, 'abandoned', 'abandoned', 1, [U, U], [[U, U]]),
    ]);
  });

  it("names the model of a call that has no step after Done's model", () => {
    const chats = h.spans().filter((s) => s.name.startsWith('chat'));
    const stepless = chats.filter((c) => c.attributes['gen_ai.usage.input_tokens'] === undefined);
    expect(stepless.length).toBeGreaterThan(1);
    for (const chat of stepless.filter((c) => c.attributes['agent.span.incomplete'] !== true))
      expect(chat.attributes['gen_ai.request.model']).toBe('deepseek-chat');
  });

  it('gives the same traces with --dialect crabtalk as with auto-detection', () => {
    const explicit = feed('crabtalk/loop.ndjson', 'crabtalk');
    expect(explicit.results.filter((r) => r.outcome !== 'accepted')).toEqual([]);
    expect(toSpanTree(explicit.h.spans())).toEqual(toSpanTree(h.spans()));
  });
});

describe.each(
  (['behest', 'oxi', 'agent-sdk', 'crabtalk'] as const).flatMap((dialect) =>
    readdirSync(new URL(`../fixtures/${dialect}/`, import.meta.url))
      .filter((f) => f.endsWith('.ndjson'))
      .map((f) => [dialect, `${dialect}/${f}`] as const),
  ),
)('--dialect %s and auto-detection on %s', (dialect, path) => {
  it('give the same spans and accept the same lines', () => {
    const auto = feed(path);
    const explicit = feed(path, dialect);
    const accepted = (r: readonly { outcome: string }[]) =>
      r.map((x, i) => (x.outcome === 'accepted' ? i : -1)).filter((i) => i >= 0);
    expect(accepted(explicit.results)).toEqual(accepted(auto.results));
    expect(toSpanTree(explicit.h.spans())).toEqual(toSpanTree(auto.h.spans()));
  });
});
