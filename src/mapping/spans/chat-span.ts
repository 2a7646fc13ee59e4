// A model call's `chat {model}` span, its whole life: opened with its iteration, fed text, usage
// and notes, closed when the call ends, and made (attributes, events, end) with its metrics once
// it has settled — its message committed and its usage in — or else with its run's end.
import { SpanStatusCode } from '@opentelemetry/api';
import type { Attributes, HrTime, SpanContext } from '@opentelemetry/api';
import type { AssistantMessageCommitted, UsageRecorded } from '../../events/agent-event.js';
import { maxHrTime, secondsBetween } from '../../events/hr-time.js';
import { costAttributes, priceUsage, usageTokens } from '../cost.js';
import { isFirstWrite } from '../metrics/record-once.js';
import type { ChatRecord, MutableModel, RunRecord, SpanNote } from '../run-state.js';
import * as S from '../semconv.js';
import type { TrackerContext } from '../tracker-context.js';
import { recordInferenceCall, recordInferenceUsage } from './chat-metrics.js';
import { chatSpanAttributes } from './chat-span-attributes.js';
import { takeAttributes, takeEvent } from './span-budget.js';
import { SpanKind, startSpan, within } from './start-span.js';

/** How a model call stops: normally, or cut short by its run's end (and failing with it). */
export interface ChatCut {
  readonly time: HrTime;
  readonly incomplete: boolean;
  readonly errorType?: string | undefined;
}

/** ModelStarted: the iteration's model call, under its span; the run's current call from now. */
export function openChat(
  run: RunRecord,
  iteration: number,
  parent: SpanContext,
  start: HrTime,
  model: MutableModel,
): void {
  run.chat = {
    iteration,
    parent,
    conversationId: run.conversationId,
    start,
    notes: undefined,
    eventsTaken: 0,
    attributesTaken: 0,
    provider: model.provider,
    model: model.model,
    firstChunk: undefined,
    inputTokens: undefined,
    outputTokens: undefined,
    cacheReadTokens: undefined,
    cacheCreationTokens: undefined,
    reasoningTokens: undefined,
    lastChunk: undefined,
    text: '',
    finishReason: undefined,
    end: undefined,
    committed: false,
    usageSeen: false,
    incomplete: false,
    errorType: undefined,
  };
  run.chats.push(run.chat);
}

/** The model call ends (its end time is fixed); its span is made once it settles. */
export function closeChat(run: RunRecord, chat: ChatRecord, cut: ChatCut): void {
  if (chat.end === undefined) {
    chat.end = maxHrTime(cut.time, chat.start);
    chat.incomplete = cut.incomplete;
    chat.errorType = cut.errorType;
  }
  if (run.chat === chat) run.chat = undefined;
}

/** The model call a usage or commit refers to: by iteration, else the current or latest one. */
export function targetChat(run: RunRecord, iteration: number | undefined): ChatRecord | undefined {
  if (iteration !== undefined) return run.chats.find((c) => c.iteration === iteration);
  if (run.chat !== undefined) return run.chat;
  const latest = run.chats.at(-1);
  return latest !== undefined && latest.iteration === run.iteration?.number ? latest : undefined;
}

/** Keeps a span event or attributes for the call's span, within its budget. */
export function noteOnChat(ctx: TrackerContext, chat: ChatRecord, note: SpanNote): void {
  if (note.name !== undefined) {
    if (takeEvent(ctx, chat)) (chat.notes ??= []).push(note);
    return;
  }
  const attributes = takeAttributes(ctx, chat, note.attributes);
  if (Object.keys(attributes).length > 0) (chat.notes ??= []).push({ ...note, attributes });
}

/**
 * TextDelta: the call's first chunk, and its text when content is captured. Under the latest
 * conventions each later chunk records its time since the one before.
 */
export function addChatText(
  ctx: TrackerContext,
  run: RunRecord,
  chat: ChatRecord,
  time: HrTime,
  delta: string,
): void {
  chat.firstChunk ??= time;
  const previous = chat.lastChunk;
  chat.lastChunk = time;
  if (ctx.latestGenAi === true && previous !== undefined && !run.timedByArrival) {
    const interval = Math.max(0, secondsBetween(time, previous));
    if (isFirstWrite(run))
      run.instruments.inference.timePerOutputChunk.record(interval, ctx.metricSets.chat(chat));
  }
  if (ctx.captureContent && chat.text.length <= ctx.maxContentBytes) chat.text += delta;
}

/**
 * UsageRecorded: tokens on the model call and the run, one metric point per token type. Usage of
 * a call whose span was already made (it arrived after the call settled) counts in the metrics,
 * with the run's model, and in the run's totals, and is noted on the run span.
 */
export function recordUsage(ctx: TrackerContext, run: RunRecord, event: UsageRecorded): void {
  const { inputTokens, outputTokens, cacheReadInputTokens, cacheCreationInputTokens } = event.usage;
  const reasoningTokens = event.usage.reasoningOutputTokens;
  const chat = targetChat(run, event.iteration);
  const model: MutableModel = chat ?? run;
  if (chat === undefined) recordUsageApart(ctx, run, event);
  const add = (a: number | undefined, b: number | undefined) =>
    b === undefined ? a : (a ?? 0) + b;
  if (chat !== undefined) {
    chat.inputTokens = add(chat.inputTokens, inputTokens);
    chat.outputTokens = add(chat.outputTokens, outputTokens);
    chat.cacheReadTokens = add(chat.cacheReadTokens, cacheReadInputTokens);
    chat.cacheCreationTokens = add(chat.cacheCreationTokens, cacheCreationInputTokens);
    chat.reasoningTokens = add(chat.reasoningTokens, reasoningTokens);
  }
  run.inputTokens = add(run.inputTokens, inputTokens);
  run.outputTokens = add(run.outputTokens, outputTokens);
  if (inputTokens !== undefined && isFirstWrite(run)) {
    const attributes = ctx.metricSets.chatTokens(model, S.GEN_AI_TOKEN_TYPE_INPUT);
    run.instruments.tokenUsage.record(inputTokens, attributes);
  }
  if (outputTokens !== undefined && isFirstWrite(run)) {
    const attributes = ctx.metricSets.chatTokens(model, S.GEN_AI_TOKEN_TYPE_OUTPUT);
    run.instruments.tokenUsage.record(outputTokens, attributes);
  }
  if (chat !== undefined) {
    chat.usageSeen = true;
    settleChat(ctx, run, chat);
  }
}

/**
 * Usage that no open call takes (reported after its call's span was made, or before any call):
 * priced on its own with the run's model, counted in the current conventions' usage counters, and
 * noted on the run span when its call was already made.
 */
function recordUsageApart(ctx: TrackerContext, run: RunRecord, event: UsageRecorded): void {
  const tokens = usageTokens(event.usage);
  const price = tokens === undefined ? undefined : priceUsage(ctx, run, run, tokens, event.time);
  if (ctx.latestGenAi === true && tokens !== undefined) recordInferenceUsage(ctx, run, run, tokens);
  if (run.chatsMade === 0 || !takeEvent(ctx, run)) return;
  const { inputTokens, outputTokens } = event.usage;
  const attributes: Attributes = price === undefined ? {} : costAttributes(price);
  if (event.iteration !== undefined) attributes[S.ATTR_AGENT_ITERATION_NUMBER] = event.iteration;
  if (inputTokens !== undefined) attributes[S.ATTR_GEN_AI_USAGE_INPUT_TOKENS] = inputTokens;
  if (outputTokens !== undefined) attributes[S.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS] = outputTokens;
  run.span.addEvent(S.EVENT_USAGE_AFTER_CALL, attributes, event.time);
}

/** AssistantMessageCommitted: ends the model call; takes the provider, model and finish reason it names. */
export function commitMessage(
  ctx: TrackerContext,
  run: RunRecord,
  event: AssistantMessageCommitted,
): void {
  const chat = targetChat(run, event.iteration);
  if (chat === undefined) return;
  if (event.provider !== undefined) chat.provider = event.provider;
  if (event.model !== undefined) chat.model = event.model;
  if (event.finishReason !== undefined) chat.finishReason = event.finishReason;
  closeChat(run, chat, { time: event.time, incomplete: false });
  chat.committed = true;
  settleChat(ctx, run, chat);
}

/**
 * Makes the call's span now if it has settled: it ended, its message was committed and its usage
 * is in, so nothing more is coming for it (runtimes report usage while streaming, before the
 * commit, or with it). A call that never settles is made with its run's end.
 */
function settleChat(ctx: TrackerContext, run: RunRecord, chat: ChatRecord): void {
  if (chat.end === undefined || !chat.committed || !chat.usageSeen) return;
  const index = run.chats.indexOf(chat);
  if (index < 0) return;
  run.chats.splice(index, 1);
  finalizeChat(ctx, run, chat, chat.end);
}

/** Creates the call's span with its final attributes and events, ends it, records its metrics. */
export function finalizeChat(
  ctx: TrackerContext,
  run: RunRecord,
  chat: ChatRecord,
  runEnd: HrTime,
): void {
  const end = chat.end ?? maxHrTime(runEnd, chat.start);
  const tokens = usageTokens({
    inputTokens: chat.inputTokens,
    outputTokens: chat.outputTokens,
    cacheReadInputTokens: chat.cacheReadTokens,
    cacheCreationInputTokens: chat.cacheCreationTokens,
    reasoningOutputTokens: chat.reasoningTokens,
  });
  const price = tokens === undefined ? undefined : priceUsage(ctx, run, chat, tokens, chat.start);
  const attributes = chatSpanAttributes(ctx, chat);
  if (price !== undefined) Object.assign(attributes, costAttributes(price));
  const span = startSpan({
    tracer: ctx.tracer,
    name:
      chat.model === undefined
        ? S.GEN_AI_OPERATION_CHAT
        : `${S.GEN_AI_OPERATION_CHAT} ${chat.model}`,
    kind: SpanKind.CLIENT,
    parent: within(run.parent, chat.parent),
    traceId: run.traceId,
    role: `${run.roleScope}chat/${chat.iteration}`,
    startTime: chat.start,
    attributes,
  });
  for (const note of chat.notes ?? []) {
    if (note.name === undefined) span.setAttributes(note.attributes);
    else span.addEvent(note.name, note.attributes, note.time);
  }
  if (chat.errorType !== undefined) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end(end);
  run.chatsMade += 1;
  run.spanIds.push(span.spanContext().spanId);
  const metricAttributes = ctx.metricSets.chat(chat, chat.errorType);
  const duration = secondsBetween(end, chat.start);
  // Times the bridge stamped at arrival say how fast it read, not how long the call took.
  const timed = !run.timedByArrival;
  if (timed && isFirstWrite(run))
    run.instruments.operationDuration.record(duration, metricAttributes);
  const firstChunk = chat.firstChunk;
  if (firstChunk !== undefined && timed && isFirstWrite(run)) {
    const toFirst = secondsBetween(firstChunk, chat.start);
    run.instruments.timeToFirstChunk.record(toFirst, metricAttributes);
  }
  if (ctx.latestGenAi === true)
    recordInferenceCall(ctx, run, chat, metricAttributes, duration, tokens);
}
