import { SpanStatusCode } from '@opentelemetry/api';
import type { HrTime } from '@opentelemetry/api';
import { maxHrTime, secondsBetween } from '../../events/hr-time.js';
import { toContentAttribute } from '../privacy/content.js';
import { chatMetricAttributes } from '../metrics/instruments.js';
import type { ChatRecord, RunRecord, SpanNote } from '../run-state.js';
import { takeAttributes, takeEvent } from './span-budget.js';
import { SpanKind, startSpan, within } from './start-span.js';
import * as S from '../semconv.js';
import type { TrackerContext } from '../tracker-context.js';

/** How a model call stops: normally, or cut short by its run's end (and failing with it). */
export interface ChatCut {
  readonly time: HrTime;
  readonly incomplete: boolean;
  readonly errorType?: string | undefined;
}

/** The model call ends (its end time is fixed); the span is ended with the run. */
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

/** Creates the call's span with its final attributes and events, ends it, records its metrics. */
export function finalizeChat(
  ctx: TrackerContext,
  run: RunRecord,
  chat: ChatRecord,
  runEnd: HrTime,
): void {
  const end = chat.end ?? maxHrTime(runEnd, chat.start);
  const attributes = chatMetricAttributes(chat);
  if (chat.conversationId !== undefined)
    attributes[S.ATTR_GEN_AI_CONVERSATION_ID] = chat.conversationId;
  attributes[S.ATTR_AGENT_ITERATION_NUMBER] = chat.iteration;
  if (chat.firstChunk !== undefined)
    attributes[S.ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK] = secondsBetween(
      chat.firstChunk,
      chat.start,
    );
  const set = (key: string, value: number | string | string[] | undefined) => {
    if (value !== undefined) attributes[key] = value;
  };
  set(S.ATTR_GEN_AI_USAGE_INPUT_TOKENS, chat.inputTokens);
  set(S.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS, chat.outputTokens);
  set(S.ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS, chat.cacheReadTokens);
  set(S.ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS, chat.cacheCreationTokens);
  if (ctx.latestGenAi === true)
    set(S.ATTR_GEN_AI_USAGE_CACHE_WRITE_INPUT_TOKENS, chat.cacheCreationTokens);
  if (chat.finishReason !== undefined)
    set(S.ATTR_GEN_AI_RESPONSE_FINISH_REASONS, [chat.finishReason]);
  if (ctx.captureContent && chat.text !== '') {
    const content = toContentAttribute(chat.text, ctx.maxContentBytes, ctx.scrub);
    attributes[S.ATTR_GEN_AI_OUTPUT_MESSAGES] = JSON.stringify([
      { role: 'assistant', parts: [{ type: 'text', content }] },
    ]);
  }
  if (chat.end === undefined || chat.incomplete) attributes[S.ATTR_AGENT_SPAN_INCOMPLETE] = true;
  if (chat.errorType !== undefined) attributes[S.ATTR_ERROR_TYPE] = chat.errorType;
  const span = startSpan({
    tracer: ctx.tracer,
    name:
      chat.model === undefined
        ? S.GEN_AI_OPERATION_CHAT
        : `${S.GEN_AI_OPERATION_CHAT} ${chat.model}`,
    kind: SpanKind.CLIENT,
    parent: within(run.parent, chat.parent),
    traceId: run.traceId,
    role: `chat/${chat.iteration}`,
    startTime: chat.start,
    attributes,
  });
  for (const note of chat.notes ?? []) {
    if (note.name === undefined) span.setAttributes(note.attributes);
    else span.addEvent(note.name, note.attributes, note.time);
  }
  if (chat.errorType !== undefined) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end(end);
  const metricAttributes = chatMetricAttributes(chat, chat.errorType);
  run.instruments.operationDuration.record(secondsBetween(end, chat.start), metricAttributes);
  if (chat.firstChunk !== undefined) {
    run.instruments.timeToFirstChunk.record(
      secondsBetween(chat.firstChunk, chat.start),
      metricAttributes,
    );
  }
}
