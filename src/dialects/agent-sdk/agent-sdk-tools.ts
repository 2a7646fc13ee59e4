import type { HrTime } from '../../events/hr-time.js';
import type { AgentEvent } from '../../events/agent-event.js';
import type { Payload } from './agent-sdk-schemas.js';
import { defined } from '../shared/annotation-values.js';
import type { ScopedRuns } from '../shared/scoped-runs.js';

/** The loop's own result text for a tool that waits for the user. */
const AWAITING = {
  confirmation: 'Awaiting user confirmation',
  pin: 'Awaiting PIN verification',
} as const;

/** `tool_call_start`: the call, complete with its input, and its execution's start. */
export function startTool(
  runs: ScopedRuns,
  call: Payload<'tool_call_start'>,
  t: HrTime,
): AgentEvent[] {
  const runId = runs.current();
  const events: AgentEvent[] = [
    ...runs.ensureIteration(t),
    {
      type: 'ToolCallCompleted',
      runId,
      time: t,
      callId: call.id,
      toolName: call.name,
      arguments: call.input,
    },
    { type: 'ToolExecutionStarted', runId, time: t, callId: call.id, toolName: call.name },
  ];
  if (typeof call.tier === 'string')
    events.push(
      runs.annotation(t, 'tool', undefined, { 'agent_sdk.tool.tier': call.tier }, call.id),
    );
  return events;
}

/**
 * `tool_requires_confirmation` / `tool_requires_pin`: the tool does not run. The loop answers the
 * model with its own result text and sends no `tool_call_end`, so the tool span ends here.
 */
export function askUser(
  runs: ScopedRuns,
  type: 'tool_requires_confirmation' | 'tool_requires_pin',
  ask: Payload<'tool_requires_confirmation' | 'tool_requires_pin'>,
  t: HrTime,
): AgentEvent[] {
  const pin = type === 'tool_requires_pin';
  const event = pin ? 'agent_sdk.tool.pin_required' : 'agent_sdk.tool.confirmation_required';
  return [
    runs.annotation(
      t,
      'tool',
      event,
      defined({ 'gen_ai.tool.name': ask.name, 'agent_sdk.tool.description': ask.description }),
      ask.id,
    ),
    {
      type: 'ToolExecutionFinished',
      runId: runs.current(),
      time: t,
      callId: ask.id,
      toolName: ask.name,
      result: { ok: false, error: pin ? AWAITING.pin : AWAITING.confirmation },
    },
  ];
}

/** `tool_call_end`: the execution's end; a failure's output is its error text. */
export function endTool(runs: ScopedRuns, end: Payload<'tool_call_end'>, t: HrTime): AgentEvent[] {
  const output = end.result.output;
  const text = typeof output === 'string' ? output : JSON.stringify(output ?? null);
  return [
    {
      type: 'ToolExecutionFinished',
      runId: runs.current(),
      time: t,
      callId: end.id,
      toolName: end.name,
      result: end.result.success
        ? { ok: true, output: end.result.data ?? output }
        : { ok: false, error: text, isOutput: true },
      durationMs: end.result.duration_ms ?? undefined,
    },
  ];
}
