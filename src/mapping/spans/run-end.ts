import { SpanStatusCode } from '@opentelemetry/api';
import type { HrTime } from '@opentelemetry/api';
import { maxHrTime, secondsBetween } from '../../events/hr-time.js';
import { toContentAttribute } from '../privacy/content.js';
import { closeChat, finalizeChat } from './chat-span.js';
import { agentMetricAttributes } from '../metrics/instruments.js';
import type { RunRecord, ToolRecord } from '../run-state.js';
import * as S from '../semconv.js';
import type { TrackerContext } from '../tracker-context.js';

export type RunOutcome = 'completed' | 'failed' | 'cancelled' | 'abandoned';

/** How a run ends: its outcome and, for failures, the class and scrubbed text of the error. */
export interface RunEnding {
  readonly outcome: RunOutcome;
  readonly time: HrTime;
  readonly errorType?: string;
  readonly errorMessage?: string;
  readonly finishReason?: string;
  readonly iterations?: number;
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
  const attributes: Record<string, string> = {
    [S.ATTR_GEN_AI_TOOL_NAME]: tool.name,
    [S.ATTR_AGENT_TOOL_OUTCOME]: outcome,
  };
  if (errorType !== undefined) attributes[S.ATTR_ERROR_TYPE] = errorType;
  run.instruments.executeToolDuration.record(secondsBetween(end, tool.start), attributes);
  run.instruments.toolCalls.add(1, {
    [S.ATTR_GEN_AI_TOOL_NAME]: tool.name,
    [S.ATTR_AGENT_TOOL_OUTCOME]: outcome,
  });
  run.tools?.delete(tool.callId);
  if (run.tools?.size === 0) run.tools = undefined;
  run.finishedTools.add(tool.callId);
}

export function endIteration(run: RunRecord, time: HrTime, errorType?: string): void {
  const iteration = run.iteration;
  if (iteration === undefined) return;
  if (errorType !== undefined) {
    iteration.span.setStatus({ code: SpanStatusCode.ERROR });
    iteration.span.setAttribute(S.ATTR_ERROR_TYPE, errorType);
  }
  iteration.span.end(time);
  run.iteration = undefined;
}

/** Ends every open span of the run, then the run span, and records the run's metrics. */
export function endRun(ctx: TrackerContext, run: RunRecord, ending: RunEnding): void {
  const end = maxHrTime(ending.time, run.start);
  const failedType = ending.outcome === 'failed' ? ending.errorType : undefined;
  if (run.chat !== undefined)
    closeChat(run, run.chat, { time: end, incomplete: true, errorType: failedType });
  for (const chat of run.chats) finalizeChat(ctx, run, chat, end);
  for (const tool of [...(run.tools?.values() ?? [])]) {
    if (failedType !== undefined) tool.span.setStatus({ code: SpanStatusCode.ERROR });
    endTool(ctx, run, tool, end, 'incomplete', failedType);
  }
  endIteration(run, end, failedType);

  const span = run.span;
  const iterations = ending.iterations ?? run.iterationCount;
  span.setAttribute(S.ATTR_AGENT_RUN_OUTCOME, ending.outcome);
  span.setAttribute(S.ATTR_AGENT_RUN_ITERATIONS, iterations);
  if (ending.finishReason !== undefined)
    span.setAttribute(S.ATTR_GEN_AI_RESPONSE_FINISH_REASONS, [ending.finishReason]);
  if (run.inputTokens !== undefined)
    span.setAttribute(S.ATTR_GEN_AI_USAGE_INPUT_TOKENS, run.inputTokens);
  if (run.outputTokens !== undefined)
    span.setAttribute(S.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS, run.outputTokens);
  if (ending.errorType !== undefined) {
    span.setAttribute(S.ATTR_ERROR_TYPE, ending.errorType);
    span.setStatus({
      code: SpanStatusCode.ERROR,
      ...(ending.errorMessage === undefined ? {} : { message: ending.errorMessage }),
    });
  }
  if (ending.outcome === 'failed' && ending.errorMessage !== undefined) {
    span.addEvent(
      S.EVENT_EXCEPTION,
      {
        [S.ATTR_EXCEPTION_MESSAGE]: ending.errorMessage,
        [S.ATTR_ERROR_TYPE]: ending.errorType ?? S.ERROR_TYPE_OTHER,
      },
      end,
    );
  }
  span.end(end);

  const runAttributes = agentMetricAttributes(ctx.agentName, run);
  runAttributes[S.ATTR_AGENT_RUN_OUTCOME] = ending.outcome;
  const durationAttributes = { ...runAttributes };
  if (ending.errorType !== undefined) durationAttributes[S.ATTR_ERROR_TYPE] = ending.errorType;
  run.instruments.invokeAgentDuration.record(secondsBetween(end, run.start), durationAttributes);
  if (ctx.latestGenAi === true) {
    run.instruments.inferenceCalls.record(run.chats.length, durationAttributes);
    run.instruments.agentToolCalls.record(run.finishedTools.size, durationAttributes);
  }
  run.instruments.runs.add(1, runAttributes);
  run.instruments.runsActive.add(-1, agentMetricAttributes(ctx.agentName));
  const iterationAttributes = agentMetricAttributes(ctx.agentName);
  iterationAttributes[S.ATTR_AGENT_RUN_OUTCOME] = ending.outcome;
  run.instruments.iterations.record(iterations, iterationAttributes);
}

/** Captured tool output, scrubbed and truncated. */
export function toolResultContent(ctx: TrackerContext, output: unknown): string {
  return toContentAttribute(output, ctx.maxContentBytes, ctx.scrub);
}
