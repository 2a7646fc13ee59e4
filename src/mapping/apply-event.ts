import { SpanStatusCode } from '@opentelemetry/api';
import type { Attributes } from '@opentelemetry/api';
import type {
  AgentEvent,
  ModelStarted,
  ToolExecutionFinished,
  UsageRecorded,
} from '../events/agent-event.js';
import { subtractMillis, secondsBetween } from '../events/hr-time.js';
import { toContentAttribute } from './content.js';
import { agentMetricAttributes, chatMetricAttributes } from './metrics.js';
import { endChat, endIteration, endTool, toolResultContent } from './run-end.js';
import type { RunRecord, ToolRecord } from './run-state.js';
import * as S from './semconv.js';
import { SpanKind, startSpan } from './spans.js';
import type { TrackerContext } from './tracker-context.js';

/** What applying an event to an open run did. */
export type ApplyOutcome =
  | { readonly outcome: 'accepted' }
  | {
      readonly outcome: 'duplicate' | 'rejected';
      readonly reason: string;
      readonly message: string;
    };

const ACCEPTED: ApplyOutcome = { outcome: 'accepted' };

type NonTerminal = Exclude<AgentEvent, { type: 'RunCompleted' | 'RunFailed' | 'RunCancelled' }>;

/** Applies a non-terminal event to an open run. */
export function applyEvent(ctx: TrackerContext, run: RunRecord, event: NonTerminal): ApplyOutcome {
  switch (event.type) {
    case 'RunStarted':
      if (event.provider !== undefined && run.model.provider === undefined)
        setRunProvider(run, event.provider);
      if (event.model !== undefined && run.model.model === undefined) setRunModel(run, event.model);
      if (event.sessionId !== undefined && run.conversationId === undefined) {
        run.conversationId = event.sessionId;
        run.span.setAttribute(S.ATTR_GEN_AI_CONVERSATION_ID, event.sessionId);
      }
      return run.synthesized
        ? ACCEPTED
        : rejected('duplicate', 'run_already_started', 'RunStarted for a run that already started');
    case 'ContextBuilt':
      run.pendingMessageCount = event.messageCount;
      return ACCEPTED;
    case 'ModelStarted':
      return startIteration(ctx, run, event);
    case 'TextDelta': {
      const chat = run.chat;
      if (chat === undefined) return ACCEPTED;
      if (chat.firstChunk === undefined) {
        chat.firstChunk = event.time;
        chat.span.setAttribute(
          S.ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK,
          secondsBetween(event.time, chat.start),
        );
      }
      if (ctx.captureContent && chat.text.length <= ctx.maxContentBytes) chat.text += event.delta;
      return ACCEPTED;
    }
    case 'ToolCallStarted':
    case 'ToolCallDelta':
    case 'ToolMessageCommitted':
      return ACCEPTED;
    case 'ToolCallCompleted': {
      const target = run.chat?.span ?? run.iteration?.span ?? run.span;
      target.addEvent(
        S.EVENT_TOOL_CALL_REQUESTED,
        { [S.ATTR_GEN_AI_TOOL_NAME]: event.toolName, [S.ATTR_GEN_AI_TOOL_CALL_ID]: event.callId },
        event.time,
      );
      if (ctx.captureContent) {
        run.toolArguments.set(
          event.callId,
          toContentAttribute(event.arguments, ctx.maxContentBytes, ctx.scrub),
        );
      }
      return ACCEPTED;
    }
    case 'AssistantMessageCommitted':
      if (run.chat !== undefined)
        endChat(ctx, run, run.chat, { time: event.time, incomplete: false });
      return ACCEPTED;
    case 'ToolExecutionStarted': {
      if (run.tools.has(event.callId) || run.finishedTools.has(event.callId)) {
        return rejected(
          'duplicate',
          'tool_already_started',
          `tool call ${event.callId} already started`,
        );
      }
      if (run.chat !== undefined)
        endChat(ctx, run, run.chat, { time: event.time, incomplete: false });
      startTool(ctx, run, event.callId, event.toolName, event.time);
      return ACCEPTED;
    }
    case 'ToolExecutionFinished':
      return finishTool(ctx, run, event);
    case 'UsageRecorded':
      recordUsage(ctx, run, event);
      return ACCEPTED;
    case 'DoomLoopDetected': {
      const attributes = { [S.ATTR_AGENT_DOOM_LOOP_DESCRIPTION]: ctx.scrub(event.description) };
      run.span.addEvent(S.EVENT_DOOM_LOOP_DETECTED, attributes, event.time);
      run.iteration?.span.addEvent(S.EVENT_DOOM_LOOP_DETECTED, attributes, event.time);
      run.sawDoomLoop = true;
      ctx.instruments.doomLoops.add(1, agentMetricAttributes(ctx.agentName, run.model));
      return ACCEPTED;
    }
    case 'CompactionCircuitOpened':
      run.span.addEvent(
        S.EVENT_CIRCUIT_BREAKER_OPENED,
        { [S.ATTR_AGENT_COMPACTION_CONSECUTIVE_FAILURES]: event.consecutiveFailures },
        event.time,
      );
      ctx.instruments.breakerOpened.add(1, agentMetricAttributes(ctx.agentName));
      return ACCEPTED;
  }
}

function rejected(
  outcome: 'duplicate' | 'rejected',
  reason: string,
  message: string,
): ApplyOutcome {
  return { outcome, reason, message };
}

function setRunProvider(run: RunRecord, provider: string): void {
  run.model.provider = provider;
  run.span.setAttribute(S.ATTR_GEN_AI_PROVIDER_NAME, provider);
}

function setRunModel(run: RunRecord, model: string): void {
  run.model.model = model;
  run.span.setAttribute(S.ATTR_GEN_AI_REQUEST_MODEL, model);
}

function startIteration(ctx: TrackerContext, run: RunRecord, event: ModelStarted): ApplyOutcome {
  if (event.iteration <= run.highestIteration) {
    return rejected(
      'rejected',
      'iteration_out_of_order',
      `ModelStarted for iteration ${event.iteration} after iteration ${run.highestIteration}`,
    );
  }
  if (run.chat !== undefined) endChat(ctx, run, run.chat, { time: event.time, incomplete: false });
  endIteration(run, event.time);
  if (event.provider !== undefined && run.model.provider === undefined)
    setRunProvider(run, event.provider);
  if (event.model !== undefined && run.model.model === undefined) setRunModel(run, event.model);
  run.highestIteration = event.iteration;
  run.iterationCount += 1;

  const n = event.iteration;
  const iterationAttributes: Attributes = { [S.ATTR_AGENT_ITERATION_NUMBER]: n };
  if (run.pendingMessageCount !== undefined)
    iterationAttributes[S.ATTR_AGENT_CONTEXT_MESSAGE_COUNT] = run.pendingMessageCount;
  run.pendingMessageCount = undefined;
  const iteration = startSpan({
    tracer: ctx.tracer,
    name: S.SPAN_AGENT_ITERATION,
    kind: SpanKind.INTERNAL,
    parent: run.context,
    traceId: run.traceId,
    role: `iteration/${n}`,
    startTime: event.time,
    attributes: iterationAttributes,
  });
  run.iteration = { number: n, span: iteration.span, context: iteration.context };

  const model = {
    provider: event.provider ?? run.model.provider,
    model: event.model ?? run.model.model,
  };
  const chatAttributes = chatMetricAttributes(model);
  if (run.conversationId !== undefined)
    chatAttributes[S.ATTR_GEN_AI_CONVERSATION_ID] = run.conversationId;
  chatAttributes[S.ATTR_AGENT_ITERATION_NUMBER] = n;
  const chat = startSpan({
    tracer: ctx.tracer,
    name:
      model.model === undefined
        ? S.GEN_AI_OPERATION_CHAT
        : `${S.GEN_AI_OPERATION_CHAT} ${model.model}`,
    kind: SpanKind.CLIENT,
    parent: iteration.context,
    traceId: run.traceId,
    role: `chat/${n}`,
    startTime: event.time,
    attributes: chatAttributes,
  });
  run.chat = {
    span: chat.span,
    iteration: n,
    start: event.time,
    model,
    firstChunk: undefined,
    inputTokens: undefined,
    outputTokens: undefined,
    cacheReadTokens: undefined,
    cacheCreationTokens: undefined,
    text: '',
  };
  return ACCEPTED;
}

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
  const args = run.toolArguments.get(callId);
  if (args !== undefined) attributes[S.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS] = args;
  run.toolArguments.delete(callId);
  const { span } = startSpan({
    tracer: ctx.tracer,
    name: `${S.GEN_AI_OPERATION_EXECUTE_TOOL} ${name}`,
    kind: SpanKind.INTERNAL,
    parent: run.iteration?.context ?? run.context,
    traceId: run.traceId,
    role: `tool/${callId}`,
    startTime: time,
    attributes,
  });
  const tool: ToolRecord = { span, callId, name, start: time };
  run.tools.set(callId, tool);
  return tool;
}

function finishTool(
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
  let tool = run.tools.get(event.callId);
  if (tool === undefined) {
    if (run.chat !== undefined)
      endChat(ctx, run, run.chat, { time: event.time, incomplete: false });
    const start =
      event.durationMs === undefined ? event.time : subtractMillis(event.time, event.durationMs);
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
    tool.span.setStatus({ code: SpanStatusCode.ERROR, message: ctx.scrub(event.result.error) });
    endTool(ctx, run, tool, event.time, 'failure', 'tool_error');
  }
  return ACCEPTED;
}

function recordUsage(ctx: TrackerContext, run: RunRecord, event: UsageRecorded): void {
  const { inputTokens, outputTokens, cacheReadInputTokens, cacheCreationInputTokens } = event.usage;
  const chat = run.chat;
  const model = chat?.model ?? run.model;
  const add = (a: number | undefined, b: number | undefined) =>
    b === undefined ? a : (a ?? 0) + b;
  if (chat !== undefined) {
    chat.inputTokens = add(chat.inputTokens, inputTokens);
    chat.outputTokens = add(chat.outputTokens, outputTokens);
    chat.cacheReadTokens = add(chat.cacheReadTokens, cacheReadInputTokens);
    chat.cacheCreationTokens = add(chat.cacheCreationTokens, cacheCreationInputTokens);
  }
  run.inputTokens = add(run.inputTokens, inputTokens);
  run.outputTokens = add(run.outputTokens, outputTokens);
  if (inputTokens !== undefined) {
    ctx.instruments.tokenUsage.record(inputTokens, {
      ...chatMetricAttributes(model),
      [S.ATTR_GEN_AI_TOKEN_TYPE]: S.GEN_AI_TOKEN_TYPE_INPUT,
    });
  }
  if (outputTokens !== undefined) {
    ctx.instruments.tokenUsage.record(outputTokens, {
      ...chatMetricAttributes(model),
      [S.ATTR_GEN_AI_TOKEN_TYPE]: S.GEN_AI_TOKEN_TYPE_OUTPUT,
    });
  }
}
