// A run's `invoke_agent {agent}` root span, its whole life: opened at the run's first applied
// event (synthesized when that is not RunStarted), told its model as it learns it, and ended last,
// after every open span of the run, with the run's metrics.
import { ROOT_CONTEXT, SpanStatusCode, trace, TraceFlags } from '@opentelemetry/api';
import type { Attributes, Context, HrTime } from '@opentelemetry/api';
import type { AgentEvent, RunStarted } from '../../events/agent-event.js';
import type { DialectName } from '../../events/dialect-name.js';
import { maxHrTime, secondsBetween } from '../../events/hr-time.js';
import { runCostAttributes } from '../cost.js';
import { toSpanId, toTraceId } from '../ids.js';
import type { Instruments } from '../metrics/instruments.js';
import type { RunRecord } from '../run-state.js';
import * as S from '../semconv.js';
import type { TrackerContext } from '../tracker-context.js';
import { closeChat, finalizeChat } from './chat-span.js';
import { endIteration } from './iteration-span.js';
import { SpanKind, startSpan } from './start-span.js';
import { endTool } from './tool-span.js';

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

/**
 * Opens a run at its first applied event: the `invoke_agent` root span (a synthesized one when
 * that event is not `RunStarted`), in the trace the run id names (or the parent context's), and
 * the record the run's later events are applied to. `instruments` are the no-op ones for a run
 * rebuilt after its metrics were recorded.
 */
export function startRun(
  ctx: TrackerContext,
  event: AgentEvent,
  dialect: DialectName,
  now: number,
  instruments: Instruments,
  openRun: (runId: string) => Pick<RunRecord, 'traceId' | 'roleScope'> | undefined = () =>
    undefined,
): RunRecord {
  const started = event.type === 'RunStarted' ? event : undefined;
  const spawned =
    started?.parentRunId === undefined || ctx.parentContext !== undefined
      ? undefined
      : parentSpan(dialect, started.parentRunId, started, openRun);
  const parent = spawned?.context ?? ctx.parentContext;
  const parentTraceId = parent === undefined ? undefined : trace.getSpanContext(parent)?.traceId;
  const traceId = parentTraceId ?? toTraceId(dialect, event.runId);
  const agentName = started?.agentName ?? ctx.agentName;
  const attributes: Attributes = {
    [S.ATTR_GEN_AI_OPERATION_NAME]: S.GEN_AI_OPERATION_INVOKE_AGENT,
    [S.ATTR_AGENT_RUN_ID]: event.runId,
  };
  if (spawned !== undefined) attributes[S.ATTR_AGENT_RUN_PARENT_ID] = started!.parentRunId!;
  const provider =
    started?.provider ?? (event.type === 'ModelStarted' ? event.provider : undefined);
  const model = started?.model ?? (event.type === 'ModelStarted' ? event.model : undefined);
  // The latest conventions keep the provider off the internal invoke_agent span.
  if (provider !== undefined && ctx.latestGenAi !== true)
    attributes[S.ATTR_GEN_AI_PROVIDER_NAME] = provider;
  if (model !== undefined) attributes[S.ATTR_GEN_AI_REQUEST_MODEL] = model;
  if (started?.sessionId !== undefined) {
    attributes[S.ATTR_GEN_AI_CONVERSATION_ID] = started.sessionId;
    attributes[S.ATTR_SESSION_ID] = started.sessionId;
  }
  if (agentName !== undefined) attributes[S.ATTR_GEN_AI_AGENT_NAME] = agentName;
  if (started === undefined) attributes[S.ATTR_AGENT_RUN_SYNTHESIZED] = true;
  const name =
    agentName === undefined
      ? S.GEN_AI_OPERATION_INVOKE_AGENT
      : `${S.GEN_AI_OPERATION_INVOKE_AGENT} ${agentName}`;
  const roleScope = spawned === undefined ? '' : `subagent/${event.runId}/`;
  const span = startSpan({
    tracer: ctx.tracer,
    name,
    kind: SpanKind.INTERNAL,
    parent: parent ?? ROOT_CONTEXT,
    traceId,
    role: `${roleScope}run`,
    startTime: event.time,
    attributes,
    rootTrace: parent === undefined,
  });
  const run: RunRecord = {
    runId: event.runId,
    traceId,
    dialect,
    span,
    eventsTaken: 0,
    attributesTaken: 0,
    parent: parent ?? ROOT_CONTEXT,
    start: event.time,
    synthesized: started === undefined,
    agentName,
    roleScope,
    provider,
    model,
    conversationId: started?.sessionId,
    lastSeen: event.time,
    lastEvent: event.type,
    lastActivityMillis: now,
    lessRecent: undefined,
    moreRecent: undefined,
    iteration: undefined,
    chat: undefined,
    chats: [],
    chatsMade: 0,
    spanIds: [span.spanContext().spanId],
    pendingMessageCount: undefined,
    highestIteration: -1,
    iterationCount: 0,
    tools: undefined,
    finishedTools: new Set(),
    toolArguments: undefined,
    inputTokens: undefined,
    outputTokens: undefined,
    costUsd: undefined,
    pricedCalls: 0,
    unpricedCalls: 0,
    sawDoomLoop: false,
    timedByArrival: event.timeFromArrival === true,
    instruments,
    metricWrites: 0,
    replayedWrites: 0,
  };
  return run;
}

/**
 * A sub-agent's parent span, by id: the parent's `execute_tool` span for the spawning call (else
 * its run span), in the parent's trace. A parent open in this process gives its own trace and
 * scope; any other is in the trace of the top run (`rootRunId`, else the parent itself), scoped as
 * a sub-agent where it is not the top run.
 */
function parentSpan(
  dialect: DialectName,
  parentRunId: string,
  started: Pick<RunStarted, 'parentToolCallId' | 'rootRunId'>,
  openRun: (runId: string) => Pick<RunRecord, 'traceId' | 'roleScope'> | undefined,
): { readonly context: Context } {
  const toolCallId = started.parentToolCallId;
  const top = started.rootRunId ?? parentRunId;
  const open = openRun(parentRunId);
  const traceId = open?.traceId ?? toTraceId(dialect, top);
  const scope = open?.roleScope ?? (top === parentRunId ? '' : `subagent/${parentRunId}/`);
  const role = toolCallId === undefined ? `${scope}run` : `${scope}tool/${toolCallId}`;
  return {
    context: trace.setSpanContext(ROOT_CONTEXT, {
      traceId,
      spanId: toSpanId(traceId, role),
      traceFlags: TraceFlags.SAMPLED,
      isRemote: true,
    }),
  };
}

/** Fills in the run's provider and model when it did not know them yet (a lazily opened run). */
export function learnRunModel(
  ctx: TrackerContext,
  run: RunRecord,
  provider: string | undefined,
  model: string | undefined,
): void {
  if (provider !== undefined && run.provider === undefined) {
    run.provider = provider;
    if (ctx.latestGenAi !== true) run.span.setAttribute(S.ATTR_GEN_AI_PROVIDER_NAME, provider);
  }
  if (model !== undefined && run.model === undefined) {
    run.model = model;
    run.span.setAttribute(S.ATTR_GEN_AI_REQUEST_MODEL, model);
  }
}

/** Ends every open span of the run, then the run span, and records the run's metrics. */
export function endRun(ctx: TrackerContext, run: RunRecord, ending: RunEnding): void {
  const end = maxHrTime(ending.time, run.start);
  const failedType = ending.outcome === 'failed' ? ending.errorType : undefined;
  if (run.chat !== undefined)
    closeChat(run, run.chat, { time: end, incomplete: true, errorType: failedType });
  for (const chat of run.chats.splice(0)) finalizeChat(ctx, run, chat, end);
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
  span.setAttributes(runCostAttributes(run));
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

  const sets = ctx.metricSets;
  const runAttributes = sets.runOutcome(run.agentName, run, ending.outcome);
  const durationAttributes =
    ending.errorType === undefined
      ? runAttributes
      : sets.runOutcome(run.agentName, run, ending.outcome, ending.errorType);
  if (!run.timedByArrival)
    run.instruments.invokeAgentDuration.record(secondsBetween(end, run.start), durationAttributes);
  if (ctx.latestGenAi === true) {
    run.instruments.inferenceCalls.record(run.chatsMade, durationAttributes);
    run.instruments.agentToolCalls.record(run.finishedTools.size, durationAttributes);
  }
  run.instruments.runs.add(1, runAttributes);
  run.instruments.runsActive.add(-1, sets.agent(run.agentName));
  const iterationAttributes = sets.runOutcome(run.agentName, undefined, ending.outcome);
  run.instruments.iterations.record(iterations, iterationAttributes);
}
