// The current GenAI conventions' metrics of a model call: its duration, time to first chunk and
// per-call token histograms, and the usage counters it (or usage reported apart from it) adds to.
import type { Attributes } from '@opentelemetry/api';
import { secondsBetween } from '../../events/hr-time.js';
import type { UsageTokens } from '../../pricing/price-table.js';
import { totalInput } from '../../pricing/token-classes.js';
import { recordOnce } from '../metrics/record-once.js';
import type { ChatRecord, RunRecord } from '../run-state.js';
import * as S from '../semconv.js';

/** The current conventions' usage counters (each a subset where the conventions say so). */
export function recordInferenceUsage(run: RunRecord, base: Attributes, tokens: UsageTokens): void {
  const attributes = { ...base, [S.ATTR_GEN_AI_TOKEN_MODALITY]: S.GEN_AI_TOKEN_MODALITY_UNKNOWN };
  const input = totalInput(tokens);
  recordOnce(run, (i) => {
    const m = i.inference;
    m.inputTokens.add(input, attributes);
    m.outputTokens.add(tokens.output, attributes);
    m.cacheReadInputTokens.add(tokens.cacheRead, attributes);
    m.cacheWriteInputTokens.add(tokens.cacheWrite, attributes);
    m.reasoningOutputTokens.add(tokens.reasoning, attributes);
  });
}

/**
 * The current conventions' metrics of a finished call: its duration, time to first chunk, usage
 * counters (0 with modality `unknown` when it reported none, as the conventions ask) and per-call
 * token histograms.
 */
export function recordInferenceCall(
  run: RunRecord,
  chat: ChatRecord,
  attributes: Attributes,
  duration: number,
  tokens: UsageTokens | undefined,
): void {
  const timed = !run.timedByArrival;
  if (timed) recordOnce(run, (i) => i.inference.duration.record(duration, attributes));
  const firstChunk = chat.firstChunk;
  if (firstChunk !== undefined && timed) {
    const toFirst = secondsBetween(firstChunk, chat.start);
    recordOnce(run, (i) => i.inference.timeToFirstChunk.record(toFirst, attributes));
  }
  const usage = tokens ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
  const { [S.ATTR_ERROR_TYPE]: _errorType, ...usageAttributes } = attributes;
  recordInferenceUsage(run, usageAttributes, usage);
  const input = totalInput(usage);
  recordOnce(run, (i) => {
    i.inference.operationInputTokens.record(input, attributes);
    i.inference.operationOutputTokens.record(usage.output, attributes);
  });
}
