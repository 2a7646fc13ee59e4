// Sub-agents added to behest runs: a run started by one of another run's tool calls, with the
// bridge's documented `parent_run_id` / `parent_tool_call_id` / `agent_name` extension.
import { randomUUID } from 'node:crypto';

type Payload = Record<string, unknown>;

/** Microseconds since the epoch of a behest timestamp (`…T12:00:00.123456Z`). */
function micros(timestamp: string): number {
  const [whole, fraction = ''] = timestamp.replace('Z', '').split('.');
  return Date.parse(`${whole}Z`) * 1000 + Number(fraction.padEnd(6, '0').slice(0, 6));
}

function stamp(at: number): string {
  const whole = new Date(Math.floor(at / 1000)).toISOString().slice(0, 19);
  return `${whole}.${String(at % 1_000_000).padStart(6, '0')}Z`;
}

/** A line's variant, run id, tool call id (if any) and timestamp. */
function parsed(line: string) {
  const [variant, payload] = Object.entries(JSON.parse(line) as Record<string, Payload>)[0]!;
  return {
    variant,
    runId: String(payload['run_id']),
    callId: String(payload['call_id']),
    timestamp: String(payload['timestamp']),
  };
}

/** A sub-agent's lines, spread evenly from `from` to `to` (microseconds). */
function subagentLines(parentRunId: string, callId: string, from: number, to: number): string[] {
  const runId = randomUUID();
  const model = { provider: 'openai', model: 'gpt-4o-mini' };
  const events: [string, Payload][] = [
    [
      'RunStarted',
      {
        ...model,
        agent_name: 'researcher',
        parent_run_id: parentRunId,
        parent_tool_call_id: callId,
      },
    ],
    ['ModelStarted', { ...model, iteration: 1 }],
    ['TextDelta', { delta: 'Found it.' }],
    ['UsageRecorded', { usage: { input_tokens: 120, output_tokens: 9, total_tokens: 129 } }],
    ['AssistantMessageCommitted', { message_id: randomUUID() }],
    ['RunCompleted', { finish_reason: 'stop' }],
  ];
  const step = Math.max(1, Math.floor((to - from) / (events.length + 1)));
  return events.map(([variant, payload], i) =>
    JSON.stringify({
      [variant]: { run_id: runId, ...payload, timestamp: stamp(from + step * (i + 1)) },
    }),
  );
}

/**
 * `lines` with a sub-agent for every `every`-th run that executes a tool (the first such run
 * among them): spawned by its first tool execution, timed within it, its lines right after the
 * execution's start. Each parent and its sub-agent make one trace.
 */
export function withSubagents(lines: readonly string[], every: number): string[] {
  const finishedAt = new Map<string, number>();
  for (const line of lines) {
    const { variant, runId, callId, timestamp } = parsed(line);
    if (variant === 'ToolExecutionFinished')
      finishedAt.set(`${runId}/${callId}`, micros(timestamp));
  }
  const out: string[] = [];
  const seen = new Set<string>();
  let withTools = 0;
  for (const line of lines) {
    out.push(line);
    const { variant, runId, callId, timestamp } = parsed(line);
    if (variant !== 'ToolExecutionStarted' || seen.has(runId)) continue;
    seen.add(runId);
    const end = finishedAt.get(`${runId}/${callId}`);
    if (withTools++ % every !== 0 || end === undefined) continue;
    out.push(...subagentLines(runId, callId, micros(timestamp), end));
  }
  return out;
}
