import * as z from 'zod';
import { parseRfc3339 } from '../../events/hr-time.js';

// behest 0.2.2 serde JSON: externally tagged `{"Variant":{...}}`. Loose objects tolerate
// fields added by newer versions; `nullish` tolerates optional fields serialized as null.

const Timestamp = z.string().transform((text, ctx) => {
  const time = parseRfc3339(text);
  if (time === undefined) {
    ctx.addIssue({
      code: 'custom',
      message: `expected an RFC 3339 timestamp, got "${text.slice(0, 40)}"`,
    });
    return z.NEVER;
  }
  return time;
});
const Count = z.number().int().nonnegative();
const Id = z.string().min(1);
const Base = { run_id: Id, timestamp: Timestamp };

const FinishReason = z.union([z.string(), z.looseObject({ unknown: z.string() })]);
export const TokenUsage = z.looseObject({
  input_tokens: Count.nullish(),
  output_tokens: Count.nullish(),
  total_tokens: Count.nullish(),
  cache_read_input_tokens: Count.nullish(),
  cache_creation_input_tokens: Count.nullish(),
});
// z.object strips unknown keys (tolerated) and keeps the union narrowable.
export const ToolExecutionResult = z.union([
  z.object({ Success: z.object({ output: z.unknown() }) }),
  z.object({ Failure: z.object({ error: z.string() }) }),
]);

export const RunStarted = z.looseObject({
  ...Base,
  session_id: z.string().nullish(),
  provider: z.string().nullish(),
  model: z.string().nullish(),
  // The bridge's documented extension for sub-agents (behest itself sends none of these).
  agent_name: z.string().nullish(),
  parent_run_id: z.string().nullish(),
  parent_tool_call_id: z.string().nullish(),
  root_run_id: z.string().nullish(),
});
export const ContextBuilt = z.looseObject({ ...Base, message_count: Count });
export const ModelStarted = z.looseObject({
  ...Base,
  provider: z.string().nullish(),
  model: z.string().nullish(),
  iteration: Count,
});
export const TextDelta = z.looseObject({ ...Base, delta: z.string() });
export const ToolCallStarted = z.looseObject({ ...Base, call_id: Id, tool_name: z.string() });
export const ToolCallDelta = z.looseObject({ ...Base, call_id: Id, delta: z.string() });
export const ToolCallCompleted = z.looseObject({
  ...Base,
  call: z.looseObject({ id: Id, name: z.string(), arguments: z.unknown() }),
});
export const ToolExecutionStarted = ToolCallStarted;
export const ToolExecutionFinished = z.looseObject({
  ...Base,
  call_id: Id,
  tool_name: z.string(),
  result: ToolExecutionResult,
  duration_ms: Count.nullish(),
});
export const MessageCommitted = z.looseObject({ ...Base, message_id: z.string().nullish() });
export const UsageRecorded = z.looseObject({ ...Base, usage: TokenUsage });
export const RunCompleted = z.looseObject({
  ...Base,
  finish_reason: FinishReason.nullish(),
  iterations: Count.nullish(),
});
export const RunFailed = z.looseObject({ ...Base, error: z.string() });
export const RunCancelled = z.looseObject(Base);
export const DoomLoopDetected = z.looseObject({ ...Base, description: z.string() });
export const CompactionCircuitOpened = z.looseObject({ ...Base, consecutive_failures: Count });
