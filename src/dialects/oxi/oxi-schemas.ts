import * as z from 'zod';
import type { AnnotationValue } from '../../events/agent-event.js';
import { defined } from '../shared/annotation-values.js';
import { isRecord } from '../shared/parse-result.js';
import { checksOf } from '../shared/schema-check.js';

// oxi's event schemas: the fields the bridge maps, loose so that newer fields pass.

const Count = z.number().int().nonnegative();
const Usage = z.looseObject({
  input: Count.nullish(),
  output: Count.nullish(),
  cache_read: Count.nullish(),
  cache_write: Count.nullish(),
  cost: z.looseObject({}).catchall(z.number()).nullish(),
});
export const Message = z.looseObject({
  role: z.string(),
  content: z.unknown(),
  provider: z.string().nullish(),
  model: z.string().nullish(),
  api: z.string().nullish(),
  usage: Usage.nullish(),
  stop_reason: z.string().nullish(),
  error_message: z.string().nullish(),
});
const ToolResult = z.looseObject({
  tool_call_id: z.string(),
  content: z.unknown(),
  status: z.string().nullish(),
});
export const ToolCall = z.looseObject({ id: z.string(), name: z.string(), arguments: z.unknown() });
export const CompactionEvent = z.union([
  z.looseObject({
    Triggered: z.looseObject({ context_tokens: Count.nullish(), iteration: Count.nullish() }),
  }),
  z.looseObject({ Started: z.looseObject({ message_count: Count.nullish() }) }),
  z.looseObject({
    Completed: z.looseObject({
      result: z.looseObject({ compacted_count: Count.nullish() }).nullish(),
      duration_ms: Count.nullish(),
    }),
  }),
  z.looseObject({ Skipped: z.looseObject({ reason: z.string().nullish() }) }),
  z.looseObject({ Failed: z.looseObject({ error: z.string().nullish() }) }),
]);

export const SCHEMAS = {
  agentStart: z.looseObject({ session_id: z.string().nullish() }),
  start: z.looseObject({ prompt: z.unknown() }),
  turnStart: z.looseObject({ turn_number: Count }),
  iteration: z.looseObject({ number: Count }),
  messageStart: z.looseObject({ message: Message }),
  messageUpdate: z.looseObject({ message: Message.nullish(), delta: z.string().nullish() }),
  messageEnd: z.looseObject({ message: Message }),
  textChunk: z.looseObject({ text: z.string() }),
  toolCall: z.looseObject({ tool_call: ToolCall }),
  toolExecutionStart: z.looseObject({
    tool_call_id: z.string(),
    tool_name: z.string(),
    intent: z.string().nullish(),
    context: z.looseObject({ kind: z.string() }).nullish(),
  }),
  toolStart: z.looseObject({
    tool_call_id: z.string(),
    tool_name: z.string(),
    arguments: z.unknown().optional(),
  }),
  toolExecutionEnd: z.looseObject({
    tool_call_id: z.string(),
    tool_name: z.string(),
    result: ToolResult.nullish(),
    is_error: z.boolean().nullish(),
  }),
  toolComplete: z.looseObject({ result: ToolResult }),
  toolError: z.looseObject({ tool_call_id: z.string(), error: z.string() }),
  turnEnd: z.looseObject({ turn_number: Count.nullish(), assistant_message: Message.nullish() }),
  agentEnd: z.looseObject({
    messages: z.array(z.unknown()).nullish(),
    stop_reason: z.string().nullish(),
  }),
  complete: z.looseObject({ stop_reason: z.string().nullish() }),
  error: z.looseObject({ message: z.string() }),
  cancelled: z.looseObject({}),
  usage: z.looseObject({ input_tokens: Count.nullish(), output_tokens: Count.nullish() }),
  compaction: z.looseObject({ event: CompactionEvent }),
  retry: z.looseObject({
    attempt: Count.nullish(),
    max_retries: Count.nullish(),
    retry_after_secs: z.number().nullish(),
    reason: z.string().nullish(),
  }),
  autoRetryStart: z.looseObject({
    attempt: Count.nullish(),
    max_attempts: Count.nullish(),
    delay_ms: Count.nullish(),
    error_message: z.string().nullish(),
  }),
  autoRetryEnd: z.looseObject({
    success: z.boolean().nullish(),
    attempt: Count.nullish(),
    final_error: z.string().nullish(),
  }),
  fallback: z.looseObject({ from_model: z.string().nullish(), to_model: z.string().nullish() }),
  ttsrInterrupt: z.looseObject({ rule_name: z.string().nullish() }),
};

/** Accepted, nothing to map (streaming progress, thinking, turn bookkeeping). */
export const NO_OPS = new Set([
  'thinking',
  'thinkingDelta',
  'thinkingEnd',
  'partialResponse',
  'toolCallDelta',
  'toolExecutionUpdate',
  'toolProgress',
  'steeringMessage',
  'followUpMessage',
]);
export const OXI_TYPES = new Set([...Object.keys(SCHEMAS), ...NO_OPS]);
/** `type` values agent-sdk uses too; the fields decide. */
export const SHARED = new Set(['start', 'thinking', 'error']);

const FINISH_REASONS: Record<string, string> = {
  stop: 'stop',
  tooluse: 'tool_calls',
  length: 'length',
  error: 'error',
  aborted: 'aborted',
};
export const toFinishReason = (stop: string | null | undefined) =>
  stop === null || stop === undefined ? undefined : (FINISH_REASONS[stop.toLowerCase()] ?? stop);

export type Schemas = typeof SCHEMAS;
/**
 * Every variant's payload read without its schema where the schema would give it back as it is;
 * not `compaction`, whose attributes take the kind from the first key, where the schema's output
 * puts the kind it matched first.
 */
export const CHECKS = checksOf(SCHEMAS, ['compaction']);
export type Payload<K extends keyof Schemas> = z.output<Schemas[K]>;

/** Attributes of an `oxi.compaction` span event. */
export function compactionAttributes(
  event: z.output<typeof CompactionEvent>,
): Record<string, AnnotationValue> {
  const [kind, body] = Object.entries(event)[0] ?? ['unknown', {}];
  const b = isRecord(body) ? body : {};
  const result = isRecord(b['result']) ? b['result'] : {};
  return defined({
    'oxi.compaction.kind': kind.toLowerCase(),
    'oxi.compaction.context_tokens': b['context_tokens'] as number | undefined,
    'oxi.compaction.iteration': b['iteration'] as number | undefined,
    'oxi.compaction.message_count': b['message_count'] as number | undefined,
    'oxi.compaction.compacted_count': result['compacted_count'] as number | undefined,
    'oxi.compaction.duration_ms': b['duration_ms'] as number | undefined,
    'oxi.compaction.reason': b['reason'] as string | undefined,
    'oxi.compaction.error': b['error'] as string | undefined,
  });
}
