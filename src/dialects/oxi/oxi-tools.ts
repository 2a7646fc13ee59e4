import type { HrTime } from '../../events/hr-time.js';
import type { AgentEvent, AnnotationValue } from '../../events/agent-event.js';
import type { Payload } from './oxi-schemas.js';
import type { ScopedRuns } from '../shared/scoped-runs.js';

/** An oxi run's tool calls and executions; remembers each call's tool name until the run ends. */
export class OxiTools {
  /** Tool names by call id (`messageEnd` tool-call blocks add to it too). */
  readonly names = new Map<string, string>();

  constructor(private readonly runs: ScopedRuns) {}

  /** `toolCall`: a completed call, with its arguments. */
  call({ tool_call: call }: Payload<'toolCall'>, t: HrTime): AgentEvent[] {
    this.names.set(call.id, call.name);
    return [
      ...this.runs.ensureIteration(t),
      {
        type: 'ToolCallCompleted',
        runId: this.runs.current(),
        time: t,
        callId: call.id,
        toolName: call.name,
        arguments: call.arguments,
      },
    ];
  }

  /**
   * `toolExecutionStart` (AgentLoop) or `toolStart` (legacy, `legacy` its payload): the
   * execution's start, with the intent and context kind as tool attributes. Legacy `toolStart`
   * carries the arguments: when no `toolCall` told them, the call is completed here.
   */
  start(
    start: Payload<'toolExecutionStart'>,
    legacy: Payload<'toolStart'> | undefined,
    t: HrTime,
  ): AgentEvent[] {
    const events: AgentEvent[] = [];
    if (legacy !== undefined && !this.names.has(start.tool_call_id))
      events.push(...this.runs.ensureIteration(t), {
        type: 'ToolCallCompleted',
        runId: this.runs.current(),
        time: t,
        callId: start.tool_call_id,
        toolName: start.tool_name,
        arguments: legacy.arguments,
      });
    this.names.set(start.tool_call_id, start.tool_name);
    events.push({
      type: 'ToolExecutionStarted',
      runId: this.runs.current(),
      time: t,
      callId: start.tool_call_id,
      toolName: start.tool_name,
    });
    const attributes: Record<string, AnnotationValue> = {};
    if (typeof start.intent === 'string') attributes['oxi.tool.intent'] = start.intent;
    if (start.context?.kind !== undefined) attributes['oxi.tool.context.kind'] = start.context.kind;
    if (Object.keys(attributes).length > 0)
      events.push(this.runs.annotation(t, 'tool', undefined, attributes, start.tool_call_id));
    return events;
  }

  /** `toolExecutionEnd` (AgentLoop): failed when `is_error` or the result's status says so. */
  executionEnd(end: Payload<'toolExecutionEnd'>, t: HrTime): AgentEvent[] {
    const failed = end.is_error === true || end.result?.status === 'error';
    return [this.finish(t, end.tool_call_id, end.tool_name, failed, end.result?.content)];
  }

  /** `toolComplete` (legacy): the result, failed when its status says so. */
  complete({ result }: Payload<'toolComplete'>, t: HrTime): AgentEvent[] {
    return [
      this.finish(t, result.tool_call_id, undefined, result.status === 'error', result.content),
    ];
  }

  /** `toolError` (legacy): a failed execution, the error its text. */
  error(error: Payload<'toolError'>, t: HrTime): AgentEvent[] {
    return [this.finish(t, error.tool_call_id, undefined, true, error.error)];
  }

  private finish(
    t: HrTime,
    callId: string,
    name: string | undefined,
    failed: boolean,
    content: unknown,
  ): AgentEvent {
    const toolName = name ?? this.names.get(callId) ?? 'unknown';
    const text = typeof content === 'string' ? content : JSON.stringify(content ?? null);
    return {
      type: 'ToolExecutionFinished',
      runId: this.runs.current(),
      time: t,
      callId,
      toolName,
      result: failed ? { ok: false, error: text, isOutput: true } : { ok: true, output: content },
    };
  }
}
