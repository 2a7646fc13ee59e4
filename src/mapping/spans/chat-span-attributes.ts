import type { Attributes } from '@opentelemetry/api';
import { secondsBetween } from '../../events/hr-time.js';
import { toContentAttribute } from '../privacy/content.js';
import type { ChatRecord } from '../run-state.js';
import * as S from '../semconv.js';
import type { TrackerContext } from '../tracker-context.js';

/** A model call's `chat {model}` span attributes (its metric points have their own, low-cardinality set). */
export function chatSpanAttributes(ctx: TrackerContext, chat: ChatRecord): Attributes {
  const attributes: Attributes = { [S.ATTR_GEN_AI_OPERATION_NAME]: S.GEN_AI_OPERATION_CHAT };
  const set = (key: string, value: number | string | string[] | undefined) => {
    if (value !== undefined) attributes[key] = value;
  };
  set(S.ATTR_GEN_AI_PROVIDER_NAME, chat.provider);
  set(S.ATTR_GEN_AI_REQUEST_MODEL, chat.model);
  set(S.ATTR_GEN_AI_CONVERSATION_ID, chat.conversationId);
  set(S.ATTR_SESSION_ID, chat.conversationId);
  attributes[S.ATTR_AGENT_ITERATION_NUMBER] = chat.iteration;
  if (chat.firstChunk !== undefined)
    attributes[S.ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK] = secondsBetween(
      chat.firstChunk,
      chat.start,
    );
  set(S.ATTR_GEN_AI_USAGE_INPUT_TOKENS, chat.inputTokens);
  set(S.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS, chat.outputTokens);
  set(S.ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS, chat.cacheReadTokens);
  set(S.ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS, chat.cacheCreationTokens);
  if (ctx.latestGenAi === true)
    set(S.ATTR_GEN_AI_USAGE_CACHE_WRITE_INPUT_TOKENS, chat.cacheCreationTokens);
  set(S.ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS, chat.reasoningTokens);
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
  return attributes;
}
