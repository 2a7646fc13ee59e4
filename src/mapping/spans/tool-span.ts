import { SpanStatusCode } from '@opentelemetry/api';
import type { Attributes } from '@opentelemetry/api';
import type { ToolExecutionFinished } from '../../events/agent-event.js';
import { subtractMillis } from '../../events/hr-time.js';
import { ACCEPTED, rejected } from '../apply-outcome.js';
import type { ApplyOutcome } from '../apply-outcome.js';
import { closeChat } from './chat-span.js';
import { endTool, toolResultContent } from './run-end.js';
import type { RunRecord, ToolRecord } from '../run-state.js';
import * as S from '../semconv.js';
import { SpanKind, startSpan, within } from './start-span.js';
import type { TrackerContext } from '../tracker-context.js';

/** A rejection when the run already has `maxToolsPerRun` tool spans (bounds memory per run). */
export function toolLimit(ctx: TrackerContext, run: RunRecord): ApplyOutcome | undefined {
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
export function startTool(
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
  const args = run.toolArguments?.get(callId);
  if (args !== undefined) attributes[S.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS] = args;
  run.toolArguments?.delete(callId);
  const span = startSpan({
    tracer: ctx.tracer,
    name: `${S.GEN_AI_OPERATION_EXECUTE_TOOL} ${name}`,
    kind: SpanKind.INTERNAL,
    parent: within(run.parent, run.iteration?.span ?? run.span),
    traceId: run.traceId,
    role: `tool/${callId}`,
    startTime: time,
    attributes,
  });
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
      isOutput === true && !ctx.captureContent
        ? { code: SpanStatusCode.ERROR }
        : { code: SpanStatusCode.ERROR, message: ctx.freeText(error) },
    );
    endTool(ctx, run, tool, event.time, 'failure', 'tool_error');
  }
  return ACCEPTED;
}
