import * as z from 'zod';
import { checksOf } from '../shared/schema-check.js';

// agent-sdk's event schemas: the fields the bridge maps, loose so that newer fields pass.

const Count = z.number().int().nonnegative();
const TokenUsage = z.looseObject({ input_tokens: Count.nullish(), output_tokens: Count.nullish() });
const ToolInput = { id: z.string(), name: z.string(), input: z.unknown() };

export const SCHEMAS = {
  start: z.looseObject({ thread_id: z.string().nullish(), turn: Count.nullish() }),
  text_delta: z.looseObject({ delta: z.string() }),
  text: z.looseObject({ text: z.string() }),
  tool_call_start: z.looseObject({
    ...ToolInput,
    tier: z.string().nullish(),
    display_name: z.string().nullish(),
  }),
  tool_call_end: z.looseObject({
    id: z.string(),
    name: z.string(),
    result: z.looseObject({
      success: z.boolean(),
      output: z.unknown(),
      data: z.unknown(),
      duration_ms: Count.nullish(),
    }),
  }),
  tool_requires_confirmation: z.looseObject({ ...ToolInput, description: z.string().nullish() }),
  tool_requires_pin: z.looseObject({ ...ToolInput, description: z.string().nullish() }),
  turn_complete: z.looseObject({ turn: Count, usage: TokenUsage.nullish() }),
  done: z.looseObject({
    thread_id: z.string().nullish(),
    total_turns: Count.nullish(),
    total_usage: TokenUsage.nullish(),
    duration: z.looseObject({ secs: Count, nanos: Count }).nullish(),
  }),
  error: z.looseObject({ message: z.string(), recoverable: z.boolean() }),
  context_compacted: z.looseObject({
    original_count: Count.nullish(),
    new_count: Count.nullish(),
    original_tokens: Count.nullish(),
    new_tokens: Count.nullish(),
  }),
  subagent_progress: z.looseObject({
    subagent_id: z.string().nullish(),
    subagent_name: z.string().nullish(),
    tool_name: z.string().nullish(),
    completed: z.boolean().nullish(),
    success: z.boolean().nullish(),
    tool_count: Count.nullish(),
    total_tokens: Count.nullish(),
  }),
  refusal: z.looseObject({}),
};
export const NO_OPS = new Set(['thinking', 'thinking_delta', 'tool_progress']);
export const SDK_TYPES = new Set([...Object.keys(SCHEMAS), ...NO_OPS]);
export const ENVELOPE = ['event_id', 'sequence'];
export const RETRY_NOTICE =
  /\[(Rate limited|Server error)[^\]]*?retrying in ([\d.]+)s\.\.\. \(attempt (\d+)\/(\d+)\)\]/;

export type Schemas = typeof SCHEMAS;
/** Every variant's payload read without its schema where the schema would give it back as it is. */
export const CHECKS = checksOf(SCHEMAS);
export type Payload<K extends keyof Schemas> = z.output<Schemas[K]>;
