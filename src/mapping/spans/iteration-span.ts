import type { Attributes } from '@opentelemetry/api';
import type {
  AssistantMessageCommitted,
  ModelStarted,
  UsageRecorded,
} from '../../events/agent-event.js';
import { ACCEPTED, rejected } from '../apply-outcome.js';
import type { ApplyOutcome } from '../apply-outcome.js';
import { chatMetricAttributes } from '../metrics/instruments.js';
import { closeChat, targetChat } from './chat-span.js';
import { endIteration } from './run-end.js';
import type { MutableModel, RunRecord } from '../run-state.js';
import * as S from '../semconv.js';
import { SpanKind, startSpan, within } from './start-span.js';
import type { TrackerContext } from '../tracker-context.js';

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

/** ModelStarted: ends the previous iteration, starts the iteration span and its model call. */
export function startIteration(
  ctx: TrackerContext,
  run: RunRecord,
  event: ModelStarted,
): ApplyOutcome {
  if (event.iteration <= run.highestIteration) {
    return rejected(
      'rejected',
      'iteration_out_of_order',
      `ModelStarted for iteration ${event.iteration} after iteration ${run.highestIteration}`,
    );
  }
  if (run.iterationCount >= ctx.maxIterationsPerRun) {
    ctx.limitHit(
      'limit_iterations',
      `run ${run.runId} reached ${ctx.maxIterationsPerRun} iterations; further iterations are rejected`,
    );
    return rejected(
      'rejected',
      'limit_iterations',
      `more than ${ctx.maxIterationsPerRun} iterations in run ${run.runId}`,
    );
  }
  if (run.chat !== undefined) closeChat(run, run.chat, { time: event.time, incomplete: false });
  endIteration(run, event.time);
  learnRunModel(ctx, run, event.provider, event.model);
  run.highestIteration = event.iteration;
  run.iterationCount += 1;

  const n = event.iteration;
  const iterationAttributes: Attributes = { [S.ATTR_AGENT_ITERATION_NUMBER]: n };
  if (run.pendingMessageCount !== undefined)
    iterationAttributes[S.ATTR_AGENT_CONTEXT_MESSAGE_COUNT] = run.pendingMessageCount;
  run.pendingMessageCount = undefined;
  const span = startSpan({
    tracer: ctx.tracer,
    name: S.SPAN_AGENT_ITERATION,
    kind: SpanKind.INTERNAL,
    parent: within(run.parent, run.span),
    traceId: run.traceId,
    role: `iteration/${n}`,
    startTime: event.time,
    attributes: iterationAttributes,
  });
  run.iteration = { number: n, span, eventsTaken: 0, attributesTaken: 0 };

  run.chat = {
    iteration: n,
    parent: span.spanContext(),
    conversationId: run.conversationId,
    start: event.time,
    notes: undefined,
    eventsTaken: 0,
    attributesTaken: 0,
    provider: event.provider ?? run.provider,
    model: event.model ?? run.model,
    firstChunk: undefined,
    inputTokens: undefined,
    outputTokens: undefined,
    cacheReadTokens: undefined,
    cacheCreationTokens: undefined,
    text: '',
    finishReason: undefined,
    end: undefined,
    incomplete: false,
    errorType: undefined,
  };
  run.chats.push(run.chat);
  return ACCEPTED;
}

/** UsageRecorded: tokens on the open model call and the run, one metric point per token type. */
export function recordUsage(ctx: TrackerContext, run: RunRecord, event: UsageRecorded): void {
  const { inputTokens, outputTokens, cacheReadInputTokens, cacheCreationInputTokens } = event.usage;
  const chat = targetChat(run, event.iteration);
  const model: MutableModel = chat ?? run;
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
    run.instruments.tokenUsage.record(inputTokens, {
      ...chatMetricAttributes(model),
      [S.ATTR_GEN_AI_TOKEN_TYPE]: S.GEN_AI_TOKEN_TYPE_INPUT,
    });
  }
  if (outputTokens !== undefined) {
    run.instruments.tokenUsage.record(outputTokens, {
      ...chatMetricAttributes(model),
      [S.ATTR_GEN_AI_TOKEN_TYPE]: S.GEN_AI_TOKEN_TYPE_OUTPUT,
    });
  }
}

/** AssistantMessageCommitted: ends the model call; takes the provider, model and finish reason it names. */
export function commitMessage(
  ctx: TrackerContext,
  run: RunRecord,
  event: AssistantMessageCommitted,
): void {
  const chat = targetChat(run, event.iteration);
  learnRunModel(ctx, run, event.provider, event.model);
  if (chat === undefined) return;
  if (event.provider !== undefined) chat.provider = event.provider;
  if (event.model !== undefined) chat.model = event.model;
  if (event.finishReason !== undefined) chat.finishReason = event.finishReason;
  closeChat(run, chat, { time: event.time, incomplete: false });
}
