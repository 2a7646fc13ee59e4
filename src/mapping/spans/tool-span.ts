// A tool execution's `execute_tool {tool}` span, its whole life: the call requested by the model
// (its arguments kept when captured), started, finished (or started at finish − duration when its
// start was never seen), or cut short by its run's end; and the tool's metrics.
import { SpanStatusCode } from '@opentelemetry/api';
import type { Attributes, HrTime } from '@opentelemetry/api';
import type {
  ToolCallCompleted,
  ToolExecutionFinished,
  ToolExecutionStarted,
} from '../../events/agent-event.js';
import { maxHrTime, secondsBetween, subtractMillis } from '../../events/hr-time.js';
import { ACCEPTED, rejected } from '../apply-outcome.js';
import type { ApplyOutcome } from '../apply-outcome.js';
import { isFirstWrite } from '../metrics/record-once.js';
import { toContentAttribute } from '../privacy/content.js';
import type { RunRecord, ToolRecord } from '../run-state.js';
import * as S from '../semconv.js';
import type { TrackerContext } from '../tracker-context.js';
import { closeChat, noteOnChat } from './chat-span.js';
import { takeEvent } from './span-budget.js';
import { SpanKind, startSpan, within } from './start-span.js';

/** Captured arguments kept per run for calls not yet executed (each at most `maxContentBytes`). */
const MAX_PENDING_TOOL_ARGUMENTS = 64;

/** ToolCallCompleted: the model asked for a call (an event on its span); its arguments kept. */
export function requestTool(ctx: TrackerContext, run: RunRecord, event: ToolCallCompleted): void {
  const attributes = {
    [S.ATTR_GEN_AI_TOOL_NAME]: event.toolName,
    [S.ATTR_GEN_AI_TOOL_CALL_ID]: event.callId,
  };
  if (run.chat !== undefined) {
    noteOnChat(ctx, run.chat, {
      name: S.EVENT_TOOL_CALL_REQUESTED,
      attributes,
      time: event.time,
    });
  } else {
    const target = run.iteration ?? run;
    if (takeEvent(ctx, target))
      target.span.addEvent(S.EVENT_TOOL_CALL_REQUESTED, attributes, event.time);
  }
  if (ctx.captureContent) {
    const pending = (run.toolArguments ??= new Map());
    if (pending.size >= MAX_PENDING_TOOL_ARGUMENTS) {
      // Arguments of calls that never ran: the oldest give way.
      pending.delete(pending.keys().next().value as string);
      ctx.limitHit(
        'pending_tool_arguments',
        `more than ${MAX_PENDING_TOOL_ARGUMENTS} tool calls of one run waited for execution; the oldest arguments were dropped`,
      );
    }
    pending.set(event.callId, toContentAttribute(event.arguments, ctx.maxContentBytes, ctx.scrub));
  }
}

/** ToolExecutionStarted: the model call ends and the tool's span starts. */
export function beginTool(
  ctx: TrackerContext,
  run: RunRecord,
  event: ToolExecutionStarted,
): ApplyOutcome {
  if (run.tools?.has(event.callId) === true || run.finishedTools.has(event.callId)) {
    return rejected(
      'duplicate',
      'tool_already_started',
      `tool call ${event.callId} already started`,
    );
  }
  const limited = toolLimit(ctx, run);
  if (limited !== undefined) return limited;
  if (run.chat !== undefined) closeChat(run, run.chat, { time: event.time, incomplete: false });
  startTool(ctx, run, event.callId, event.toolName, event.time);
  return ACCEPTED;
}

/** A rejection when the run already has `maxToolsPerRun` tool spans (bounds memory per run). */
function toolLimit(ctx: TrackerContext, run: RunRecord): ApplyOutcome | undefined {
  if ((run.tools?.size ?? 0) + run.finishedTools.size < ctx.maxToolsPerRun) return undefined;
  ctx.limitHit(
    'limit_tools',
    `run ${run.runId} reached ${ctx.maxToolsPerRun} tool executions; further ones are rejected`,
  );
  return rejected(
    'rejected',
    'limit_tools',
    `more than ${ctx.maxToolsPerRun} tool executions in run ${run.runId}`,
  );
}

/** Starts an `execute_tool` span under the open iteration (or the run). */
function startTool(
  ctx: TrackerContext,
  run: RunRecord,
  callId: string,
  name: string,
  time: ToolRecord['start'],
): ToolRecord {
  const attributes: Attributes = {
    [S.ATTR_GEN_AI_OPERATION_NAME]: S.GEN_AI_OPERATION_EXECUTE_TOOL,
    [S.ATTR_GEN_AI_TOOL_NAME]: name,
    [S.ATTR_GEN_AI_TOOL_CALL_ID]: callId,
    [S.ATTR_GEN_AI_TOOL_TYPE]: S.GEN_AI_TOOL_TYPE_FUNCTION,
  };
  if (ctx.latestGenAi === true && run.agentName !== undefined)
    attributes[S.ATTR_GEN_AI_AGENT_NAME] = run.agentName;
  const args = run.toolArguments?.get(callId);
  if (args !== undefined) attributes[S.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS] = args;
  run.toolArguments?.delete(callId);
  const span = startSpan({
    tracer: ctx.tracer,
    name: `${S.GEN_AI_OPERATION_EXECUTE_TOOL} ${name}`,
    kind: SpanKind.INTERNAL,
    parent: within(run.parent, run.iteration?.span ?? run.span),
    traceId: run.traceId,
    role: `${run.roleScope}tool/${callId}`,
    startTime: time,
    attributes,
  });
  run.spanIds.push(span.spanContext().spanId);
  const tool: ToolRecord = {
    span,
    eventsTaken: 0,
    attributesTaken: 0,
    callId,
    name,
    start: time,
  };
  (run.tools ??= new Map()).set(callId, tool);
  return tool;
}

/** ToolExecutionFinished: ends the tool span, starting it first (at finish − duration) when its start was never seen. */
export function finishTool(
  ctx: TrackerContext,
  run: RunRecord,
  event: ToolExecutionFinished,
): ApplyOutcome {
  if (run.finishedTools.has(event.callId)) {
    return rejected(
      'duplicate',
      'tool_already_finished',
      `tool call ${event.callId} already finished`,
    );
  }
  let tool = run.tools?.get(event.callId);
  if (tool === undefined) {
    const limited = toolLimit(ctx, run);
    if (limited !== undefined) return limited;
    if (run.chat !== undefined) closeChat(run, run.chat, { time: event.time, incomplete: false });
    const start =
      event.durationMs === undefined
        ? event.time
        : subtractMillis(event.time, event.durationMs, run.start);
    tool = startTool(ctx, run, event.callId, event.toolName, start);
  }
  if (event.result.ok) {
    if (ctx.captureContent)
      tool.span.setAttribute(
        S.ATTR_GEN_AI_TOOL_CALL_RESULT,
        toolResultContent(ctx, event.result.output),
      );
    endTool(ctx, run, tool, event.time, 'success', undefined);
  } else {
    const { error, isOutput } = event.result;
    tool.span.setStatus(
      (isOutput === true && !ctx.captureContent) || !ctx.exportErrorText
        ? { code: SpanStatusCode.ERROR }
        : { code: SpanStatusCode.ERROR, message: ctx.freeText(error) },
    );
    endTool(ctx, run, tool, event.time, 'failure', 'tool_error');
  }
  return ACCEPTED;
}

export type ToolOutcome = 'success' | 'failure' | 'incomplete';

export function endTool(
  ctx: TrackerContext,
  run: RunRecord,
  tool: ToolRecord,
  time: HrTime,
  outcome: ToolOutcome,
  errorType: string | undefined,
): void {
  const end = maxHrTime(time, tool.start);
  tool.span.setAttribute(S.ATTR_AGENT_TOOL_OUTCOME, outcome);
  if (outcome === 'incomplete') tool.span.setAttribute(S.ATTR_AGENT_SPAN_INCOMPLETE, true);
  if (errorType !== undefined) tool.span.setAttribute(S.ATTR_ERROR_TYPE, errorType);
  tool.span.end(end);
  if (isFirstWrite(run)) {
    const sets = ctx.metricSets;
    if (!run.timedByArrival) {
      const latest = ctx.latestGenAi === true;
      const attributes = sets.tool(tool.name, outcome, errorType, latest, run.agentName);
      run.instruments.executeToolDuration.record(secondsBetween(end, tool.start), attributes);
    }
    run.instruments.toolCalls.add(1, sets.tool(tool.name, outcome, undefined, false, undefined));
  }
  run.tools?.delete(tool.callId);
  if (run.tools?.size === 0) run.tools = undefined;
  run.finishedTools.add(tool.callId);
}

/** Captured tool output, scrubbed and truncated. */
function toolResultContent(ctx: TrackerContext, output: unknown): string {
  return toContentAttribute(output, ctx.maxContentBytes, ctx.scrub);
}
