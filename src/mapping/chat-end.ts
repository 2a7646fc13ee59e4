import { SpanStatusCode } from '@opentelemetry/api';
import type { HrTime } from '@opentelemetry/api';
import { maxHrTime, secondsBetween } from '../events/hr-time.js';
import { toContentAttribute } from './content.js';
import { chatMetricAttributes } from './metrics.js';
import type { ChatRecord, RunRecord } from './run-state.js';
import * as S from './semconv.js';
import type { TrackerContext } from './tracker-context.js';

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

/** Writes the call's attributes, ends its span and records its metrics. */
export function finalizeChat(ctx: TrackerContext, chat: ChatRecord, runEnd: HrTime): void {
  const span = chat.span;
  const end = chat.end ?? maxHrTime(runEnd, chat.start);
  const set = (key: string, value: number | string | string[] | undefined) => {
    if (value !== undefined) span.setAttribute(key, value);
  };
  if (chat.model.model !== undefined) {
    span.updateName(`${S.GEN_AI_OPERATION_CHAT} ${chat.model.model}`);
    set(S.ATTR_GEN_AI_REQUEST_MODEL, chat.model.model);
  }
  set(S.ATTR_GEN_AI_PROVIDER_NAME, chat.model.provider);
  set(S.ATTR_GEN_AI_USAGE_INPUT_TOKENS, chat.inputTokens);
  set(S.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS, chat.outputTokens);
  set(S.ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS, chat.cacheReadTokens);
  set(S.ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS, chat.cacheCreationTokens);
  if (chat.finishReason !== undefined)
    set(S.ATTR_GEN_AI_RESPONSE_FINISH_REASONS, [chat.finishReason]);
  if (ctx.captureContent && chat.text !== '') {
    const content = toContentAttribute(chat.text, ctx.maxContentBytes, ctx.scrub);
    span.setAttribute(
      S.ATTR_GEN_AI_OUTPUT_MESSAGES,
      JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content }] }]),
    );
  }
  if (chat.end === undefined || chat.incomplete)
    span.setAttribute(S.ATTR_AGENT_SPAN_INCOMPLETE, true);
  if (chat.errorType !== undefined) {
    span.setAttribute(S.ATTR_ERROR_TYPE, chat.errorType);
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end(end);
  const attributes = chatMetricAttributes(chat.model, chat.errorType);
  ctx.instruments.operationDuration.record(secondsBetween(end, chat.start), attributes);
  if (chat.firstChunk !== undefined) {
    ctx.instruments.timeToFirstChunk.record(
      secondsBetween(chat.firstChunk, chat.start),
      attributes,
    );
  }
}
