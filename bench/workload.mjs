// The benchmarks' realistic workload, as canonical (pre-parsed) events: behest-shaped runs of
// `iterations` model iterations, each with `deltas` text deltas, `tools` tool calls and executions
// and one usage report. `concurrent` runs are interleaved event by event, as a fleet emits them.
import { randomUUID } from 'node:crypto';

const PROVIDER = 'openai';
const MODEL = 'gpt-4o-mini';
const TOOL_NAMES = ['search_docs', 'read_file', 'run_tests'];

/** Events of one run, times in microseconds from `startMicros`. */
export function runEvents(
  startMicros,
  { iterations = 5, deltas = 20, tools = 2, outcome = 'completed' } = {},
) {
  const runId = randomUUID();
  const events = [];
  let at = startMicros;
  const emit = (type, fields, afterMicros = 1000) => {
    at += afterMicros;
    events.push({ type, runId, time: [Math.floor(at / 1e6), (at % 1e6) * 1000], ...fields });
  };
  emit('RunStarted', { sessionId: randomUUID(), provider: PROVIDER, model: MODEL }, 0);
  for (let n = 1; n <= iterations; n += 1) {
    emit('ContextBuilt', { messageCount: 1 + n * 2 }, 2000);
    emit('ModelStarted', { iteration: n, provider: PROVIDER, model: MODEL }, 300);
    for (let d = 0; d < deltas; d += 1) emit('TextDelta', { delta: `word${d} ` }, 25_000);
    const calls = [];
    for (let t = 0; t < tools; t += 1) {
      const callId = `call_${n}_${t}_${runId.slice(0, 8)}`;
      const toolName = TOOL_NAMES[t % TOOL_NAMES.length];
      calls.push({ callId, toolName });
      emit('ToolCallStarted', { callId, toolName }, 40_000);
      emit('ToolCallCompleted', { callId, toolName, arguments: { query: 'x', limit: t } }, 5000);
    }
    emit('UsageRecorded', { usage: { inputTokens: 600 * n, outputTokens: 40 } }, 4000);
    emit('AssistantMessageCommitted', { messageId: randomUUID() }, 2000);
    for (const { callId, toolName } of calls) {
      emit('ToolExecutionStarted', { callId, toolName }, 1000);
      emit(
        'ToolExecutionFinished',
        { callId, toolName, result: { ok: true, output: 'ok' } },
        90_000,
      );
    }
  }
  if (outcome === 'completed') emit('RunCompleted', { iterations }, 3000);
  else if (outcome === 'failed') emit('RunFailed', { error: 'provider returned 500' }, 3000);
  return events;
}

/** `runs` runs, `concurrent` at a time, interleaved round robin. */
export function fleetEvents(runs, { concurrent = 20, ...shape } = {}) {
  const out = [];
  const base = Date.UTC(2025, 5, 1, 12) * 1000;
  for (let first = 0; first < runs; first += concurrent) {
    const batch = [];
    for (let i = first; i < Math.min(runs, first + concurrent); i += 1)
      batch.push(runEvents(base + i * 1000, shape));
    const longest = Math.max(...batch.map((b) => b.length));
    for (let k = 0; k < longest; k += 1) for (const b of batch) if (k < b.length) out.push(b[k]);
  }
  return out;
}

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
