import type { HrTime } from '../../events/hr-time.js';
import type * as z from 'zod';
import type { AgentEvent, TokenUsage } from '../../events/agent-event.js';
import { ToolCall, toFinishReason } from './oxi-schemas.js';
import type { Message } from './oxi-schemas.js';
import { isRecord } from '../shared/parse-result.js';
import type { ScopedRuns } from '../shared/scoped-runs.js';
import { checkOf, readWith } from '../shared/schema-check.js';

const TOOL_CALL = checkOf(ToolCall);

/**
 * An assistant `messageEnd`: its tool calls (content blocks, `type` in any case), its usage and
 * cost, then the commit that names provider, model and finish reason. Other roles map to nothing.
 */
export function endAssistantMessage(
  runs: ScopedRuns,
  toolNames: Map<string, string>,
  message: z.output<typeof Message>,
  t: HrTime,
): AgentEvent[] {
  if (message.role !== 'assistant') return [];
  const runId = runs.current();
  const events: AgentEvent[] = [...runs.ensureIteration(t)];
  for (const block of Array.isArray(message.content) ? message.content : []) {
    const isCall =
      isRecord(block) &&
      typeof block['type'] === 'string' &&
      block['type'].toLowerCase() === 'toolcall';
    const call = isCall ? readWith(ToolCall, TOOL_CALL, block) : undefined;
    if (call?.success === true) {
      toolNames.set(call.data.id, call.data.name);
      events.push({
        type: 'ToolCallCompleted',
        runId,
        time: t,
        callId: call.data.id,
        toolName: call.data.name,
        arguments: call.data.arguments,
      });
    }
  }
  const usage = message.usage;
  if (usage !== null && usage !== undefined) {
    events.push({
      type: 'UsageRecorded',
      runId,
      time: t,
      usage: tokenUsage(usage),
    });
    const cost = usage.cost ?? {};
    if (Object.keys(cost).length > 0) {
      const attributes = Object.fromEntries(
        Object.entries(cost).map(([k, v]) => [`oxi.cost.${k}`, v]),
      );
      attributes['oxi.cost.total'] = Object.values(cost).reduce((a, b) => a + b, 0);
      events.push({ type: 'Annotation', runId, time: t, target: 'model_call', attributes });
    }
  }
  if (typeof message.api === 'string') {
    events.push({
      type: 'Annotation',
      runId,
      time: t,
      target: 'model_call',
      attributes: { 'oxi.api': message.api },
    });
  }
  events.push({
    type: 'AssistantMessageCommitted',
    runId,
    time: t,
    provider: message.provider ?? undefined,
    model: message.model ?? undefined,
    finishReason: toFinishReason(message.stop_reason),
  });
  runs.iterationOpen = false;
  return events;
}

type MessageUsage = NonNullable<z.output<typeof Message>['usage']>;

/** A message's token counts as the canonical usage. */
export function tokenUsage(usage: MessageUsage): TokenUsage {
  return {
    inputTokens: usage.input ?? undefined,
    outputTokens: usage.output ?? undefined,
    cacheReadInputTokens: usage.cache_read ?? undefined,
    cacheCreationInputTokens: usage.cache_write ?? undefined,
  };
}

/** Whether a message's usage counts any tokens. */
export function hasTokens(usage: MessageUsage | null | undefined): usage is MessageUsage {
  return (usage?.input ?? 0) > 0 || (usage?.output ?? 0) > 0;
}

/** The lower-cased type of the last content block of a message snapshot. */
export function lastBlockType(content: unknown): string | undefined {
  if (!Array.isArray(content) || content.length === 0) return undefined;
  const last: unknown = content[content.length - 1];
  return isRecord(last) && typeof last['type'] === 'string'
    ? last['type'].toLowerCase()
    : undefined;
}
