// The current GenAI conventions' metrics of a model call: its duration, time to first chunk and
// per-call token histograms, and the usage counters it (or usage reported apart from it) adds to.
import type { Attributes } from '@opentelemetry/api';
import { secondsBetween } from '../../events/hr-time.js';
import type { UsageTokens } from '../../pricing/price-table.js';
import { totalInput } from '../../pricing/token-classes.js';
import type { ModelIdentity } from '../metrics/metric-attribute-sets.js';
import { isFirstWrite } from '../metrics/record-once.js';
import type { ChatRecord, RunRecord } from '../run-state.js';
import type { TrackerContext } from '../tracker-context.js';

/** The current conventions' usage counters (each a subset where the conventions say so). */
export function recordInferenceUsage(
  ctx: TrackerContext,
  run: RunRecord,
  model: ModelIdentity,
  tokens: UsageTokens,
): void {
  if (!isFirstWrite(run)) return;
  const attributes = ctx.metricSets.inferenceUsage(model);
  const m = run.instruments.inference;
  m.inputTokens.add(totalInput(tokens), attributes);
  m.outputTokens.add(tokens.output, attributes);
  m.cacheReadInputTokens.add(tokens.cacheRead, attributes);
  m.cacheWriteInputTokens.add(tokens.cacheWrite, attributes);
  m.reasoningOutputTokens.add(tokens.reasoning, attributes);
}

const NO_TOKENS: UsageTokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 };

/**
 * The current conventions' metrics of a finished call (`attributes`: its set, error type
 * included): its duration, time to first chunk, usage counters (0 with modality `unknown` when it
 * reported none, as the conventions ask) and per-call token histograms.
 */
export function recordInferenceCall(
  ctx: TrackerContext,
  run: RunRecord,
  chat: ChatRecord,
  attributes: Attributes,
  duration: number,
  tokens: UsageTokens | undefined,
): void {
  const timed = !run.timedByArrival;
  const m = run.instruments.inference;
  if (timed && isFirstWrite(run)) m.duration.record(duration, attributes);
  const firstChunk = chat.firstChunk;
  if (firstChunk !== undefined && timed && isFirstWrite(run))
    m.timeToFirstChunk.record(secondsBetween(firstChunk, chat.start), attributes);
  const usage = tokens ?? NO_TOKENS;
  recordInferenceUsage(ctx, run, chat, usage);
  if (isFirstWrite(run)) {
    m.operationInputTokens.record(totalInput(usage), attributes);
    m.operationOutputTokens.record(usage.output, attributes);
  }
}
