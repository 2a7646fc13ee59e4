import { z } from 'zod';
import type { AgentEvent, ToolResult } from '../events/agent-event.js';
import { parseRfc3339 } from '../events/hr-time.js';
import type { Dialect, ParseResult } from './parse-result.js';
import { accepted, ignoredVariant, isRecord, rejectedSchema } from './parse-result.js';
import { toRejection } from './zod-issue.js';

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
const TokenUsage = z.looseObject({
  input_tokens: Count.nullish(),
  output_tokens: Count.nullish(),
  total_tokens: Count.nullish(),
  cache_read_input_tokens: Count.nullish(),
  cache_creation_input_tokens: Count.nullish(),
});
// z.object strips unknown keys (tolerated) and keeps the union narrowable.
const ToolExecutionResult = z.union([
  z.object({ Success: z.object({ output: z.unknown() }) }),
  z.object({ Failure: z.object({ error: z.string() }) }),
]);

const RunStarted = z.looseObject({
  ...Base,
  session_id: z.string().nullish(),
  provider: z.string().nullish(),
  model: z.string().nullish(),
});
const ContextBuilt = z.looseObject({ ...Base, message_count: Count });
const ModelStarted = z.looseObject({
  ...Base,
  provider: z.string().nullish(),
  model: z.string().nullish(),
  iteration: Count,
});
const TextDelta = z.looseObject({ ...Base, delta: z.string() });
const ToolCallStarted = z.looseObject({ ...Base, call_id: Id, tool_name: z.string() });
const ToolCallDelta = z.looseObject({ ...Base, call_id: Id, delta: z.string() });
const ToolCallCompleted = z.looseObject({
  ...Base,
  call: z.looseObject({ id: Id, name: z.string(), arguments: z.unknown() }),
});
const ToolExecutionStarted = ToolCallStarted;
const ToolExecutionFinished = z.looseObject({
  ...Base,
  call_id: Id,
  tool_name: z.string(),
  result: ToolExecutionResult,
  duration_ms: Count.nullish(),
});
const MessageCommitted = z.looseObject({ ...Base, message_id: z.string().nullish() });
const UsageRecorded = z.looseObject({ ...Base, usage: TokenUsage });
const RunCompleted = z.looseObject({
  ...Base,
  finish_reason: FinishReason.nullish(),
  iterations: Count.nullish(),
});
const RunFailed = z.looseObject({ ...Base, error: z.string() });
const RunCancelled = z.looseObject(Base);
const DoomLoopDetected = z.looseObject({ ...Base, description: z.string() });
const CompactionCircuitOpened = z.looseObject({ ...Base, consecutive_failures: Count });

type Out<S extends z.ZodType> = z.output<S>;
const opt = <T>(value: T | null | undefined): T | undefined => value ?? undefined;

function toToolResult(result: Out<typeof ToolExecutionResult>): ToolResult {
  return 'Success' in result
    ? { ok: true, output: result.Success.output }
    : { ok: false, error: result.Failure.error };
}

/** One entry per behest variant: its payload schema and the conversion to a canonical event. */
const VARIANTS = {
  RunStarted: variant(RunStarted, (p) => ({
    type: 'RunStarted',
    runId: p.run_id,
    time: p.timestamp,
    sessionId: opt(p.session_id),
    provider: opt(p.provider),
    model: opt(p.model),
  })),
  ContextBuilt: variant(ContextBuilt, (p) => ({
    type: 'ContextBuilt',
    runId: p.run_id,
    time: p.timestamp,
    messageCount: p.message_count,
  })),
  ModelStarted: variant(ModelStarted, (p) => ({
    type: 'ModelStarted',
    runId: p.run_id,
    time: p.timestamp,
    iteration: p.iteration,
    provider: opt(p.provider),
    model: opt(p.model),
  })),
  TextDelta: variant(TextDelta, (p) => ({
    type: 'TextDelta',
    runId: p.run_id,
    time: p.timestamp,
    delta: p.delta,
  })),
  ToolCallStarted: variant(ToolCallStarted, (p) => ({
    type: 'ToolCallStarted',
    runId: p.run_id,
    time: p.timestamp,
    callId: p.call_id,
    toolName: p.tool_name,
  })),
  ToolCallDelta: variant(ToolCallDelta, (p) => ({
    type: 'ToolCallDelta',
    runId: p.run_id,
    time: p.timestamp,
    callId: p.call_id,
    delta: p.delta,
  })),
  ToolCallCompleted: variant(ToolCallCompleted, (p) => ({
    type: 'ToolCallCompleted',
    runId: p.run_id,
    time: p.timestamp,
    callId: p.call.id,
    toolName: p.call.name,
    arguments: p.call.arguments,
  })),
  ToolExecutionStarted: variant(ToolExecutionStarted, (p) => ({
    type: 'ToolExecutionStarted',
    runId: p.run_id,
    time: p.timestamp,
    callId: p.call_id,
    toolName: p.tool_name,
  })),
  ToolExecutionFinished: variant(ToolExecutionFinished, (p) => ({
    type: 'ToolExecutionFinished',
    runId: p.run_id,
    time: p.timestamp,
    callId: p.call_id,
    toolName: p.tool_name,
    result: toToolResult(p.result),
    durationMs: opt(p.duration_ms),
  })),
  AssistantMessageCommitted: variant(MessageCommitted, (p) => ({
    type: 'AssistantMessageCommitted',
    runId: p.run_id,
    time: p.timestamp,
    messageId: opt(p.message_id),
  })),
  ToolMessageCommitted: variant(MessageCommitted, (p) => ({
    type: 'ToolMessageCommitted',
    runId: p.run_id,
    time: p.timestamp,
    messageId: opt(p.message_id),
  })),
  UsageRecorded: variant(UsageRecorded, (p) => ({
    type: 'UsageRecorded',
    runId: p.run_id,
    time: p.timestamp,
    usage: {
      inputTokens: opt(p.usage.input_tokens),
      outputTokens: opt(p.usage.output_tokens),
      cacheReadInputTokens: opt(p.usage.cache_read_input_tokens),
      cacheCreationInputTokens: opt(p.usage.cache_creation_input_tokens),
    },
  })),
  RunCompleted: variant(RunCompleted, (p) => ({
    type: 'RunCompleted',
    runId: p.run_id,
    time: p.timestamp,
    iterations: opt(p.iterations),
    finishReason:
      typeof p.finish_reason === 'object' && p.finish_reason !== null
        ? p.finish_reason.unknown
        : opt(p.finish_reason),
  })),
  RunFailed: variant(RunFailed, (p) => ({
    type: 'RunFailed',
    runId: p.run_id,
    time: p.timestamp,
    error: p.error,
  })),
  RunCancelled: variant(RunCancelled, (p) => ({
    type: 'RunCancelled',
    runId: p.run_id,
    time: p.timestamp,
  })),
  DoomLoopDetected: variant(DoomLoopDetected, (p) => ({
    type: 'DoomLoopDetected',
    runId: p.run_id,
    time: p.timestamp,
    description: p.description,
  })),
  CompactionCircuitOpened: variant(CompactionCircuitOpened, (p) => ({
    type: 'CompactionCircuitOpened',
    runId: p.run_id,
    time: p.timestamp,
    consecutiveFailures: p.consecutive_failures,
  })),
} as const;

/** The 17 behest 0.2.2 variant names. */
export const BEHEST_VARIANTS: readonly string[] = Object.freeze(Object.keys(VARIANTS));

interface Variant {
  parse(name: string, payload: unknown): ParseResult;
}

function variant<S extends z.ZodType>(
  schema: S,
  convert: (payload: Out<S>) => AgentEvent,
): Variant {
  return {
    parse(name, payload) {
      const parsed = schema.safeParse(payload);
      return parsed.success
        ? accepted(name, convert(parsed.data))
        : toRejection(name, parsed.error, name);
    },
  };
}

const PASCAL_CASE = /^[A-Z][A-Za-z0-9]*$/;

/** The single key of an externally tagged value, or undefined. */
export function singleKey(value: unknown): string | undefined {
  if (!isRecord(value)) return undefined;
  let found: string | undefined;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (found !== undefined) return undefined;
    found = key;
  }
  return found;
}

function parseBehest(value: unknown): ParseResult {
  const key = singleKey(value);
  if (key === undefined) {
    return {
      ok: false,
      outcome: 'rejected',
      reason: 'not_an_object',
      message: 'expected an object with exactly one variant key, such as {"RunStarted":{…}}',
    };
  }
  if (!PASCAL_CASE.test(key)) {
    return rejectedSchema(
      key,
      `expected a PascalCase behest variant key, got "${key.slice(0, 40)}"`,
    );
  }
  const entry = Object.hasOwn(VARIANTS, key) ? VARIANTS[key as keyof typeof VARIANTS] : undefined;
  if (entry === undefined) return ignoredVariant('behest', key);
  return entry.parse(key, (value as Record<string, unknown>)[key]);
}

const STATELESS = { decode: parseBehest };

/** behest 0.2.2: externally tagged serde JSON, one PascalCase variant key per line, with run ids and times. */
export const behest: Dialect = {
  name: 'behest',
  classify(value) {
    const key = singleKey(value);
    if (key === undefined || !PASCAL_CASE.test(key)) return 'no';
    const payload = (value as Record<string, unknown>)[key];
    if (!isRecord(payload)) return 'no';
    if (typeof payload['run_id'] === 'string') return 'yes';
    return Object.hasOwn(VARIANTS, key) ? 'maybe' : 'no';
  },
  createDecoder: () => STATELESS,
};
