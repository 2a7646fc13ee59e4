import type * as z from 'zod';
import type { AgentEvent, ToolResult } from '../../events/agent-event.js';
import {
  CompactionCircuitOpened,
  ContextBuilt,
  DoomLoopDetected,
  MessageCommitted,
  ModelStarted,
  RunCancelled,
  RunCompleted,
  RunFailed,
  RunStarted,
  TextDelta,
  ToolCallCompleted,
  ToolCallDelta,
  ToolCallStarted,
  ToolExecutionFinished,
  ToolExecutionStarted,
  UsageRecorded,
} from './behest-schemas.js';
import type { ToolExecutionResult } from './behest-schemas.js';
import type { ParseResult } from '../shared/parse-result.js';
import { accepted, isRecord } from '../shared/parse-result.js';
import { isCount, isId, isString, nullish, objectOf } from '../shared/field-checks.js';
import type { FieldCheck } from '../shared/field-checks.js';
import { parseRfc3339 } from '../../events/hr-time.js';
import type { HrTime } from '../../events/hr-time.js';
import { toRejection } from '../shared/zod-issue.js';

// The behest 0.2.2 variants: each payload's schema, the checks of its fields for the accepted path
// and its conversion to a canonical event (the dialect itself is behest.ts).

type Out<S extends z.ZodType> = z.output<S>;
/**
 * A payload as the conversion reads it: the schema's output, or the payload its checks passed (its
 * `timestamp` then still the text: the conversion takes the time apart).
 */
type Payload<S extends z.ZodType> = Out<S>;
const opt = <T>(value: T | null | undefined): T | undefined => value ?? undefined;

function toToolResult(result: Out<typeof ToolExecutionResult>): ToolResult {
  return 'Success' in result
    ? { ok: true, output: result.Success.output }
    : { ok: false, error: result.Failure.error };
}

const optString = nullish(isString);
const optCount = nullish(isCount);
/**
 * `ToolExecutionResult` as its schema takes it, and only where `toToolResult` of the payload itself
 * gives what it gives of the schema's output: a `Success` with its output (the schema's first
 * choice), or no `Success` key and a `Failure` with its error.
 */
const isSuccess = objectOf({}, ['output']);
const isToolResult: FieldCheck = (value) =>
  isRecord(value) &&
  (isSuccess(value['Success']) ||
    (!Object.hasOwn(value, 'Success') &&
      isRecord(value['Failure']) &&
      typeof value['Failure']['error'] === 'string'));
const isFinishReason: FieldCheck = (value) =>
  value === undefined ||
  value === null ||
  typeof value === 'string' ||
  (isRecord(value) && typeof value['unknown'] === 'string');

/**
 * One entry per behest variant: its payload schema, the checks of its fields for the accepted path
 * (see field-checks.ts) and the conversion to a canonical event, which reads the payload itself
 * when the checks pass and the schema's output otherwise.
 */
export const VARIANTS = {
  RunStarted: variant(
    RunStarted,
    {
      session_id: optString,
      provider: optString,
      model: optString,
      agent_name: optString,
      parent_run_id: optString,
      parent_tool_call_id: optString,
      root_run_id: optString,
    },
    (p, time) => ({
      type: 'RunStarted',
      runId: p.run_id,
      time,
      sessionId: opt(p.session_id),
      provider: opt(p.provider),
      model: opt(p.model),
      ...(typeof p.agent_name === 'string' ? { agentName: p.agent_name } : {}),
      ...(typeof p.parent_run_id === 'string' ? { parentRunId: p.parent_run_id } : {}),
      ...(typeof p.parent_tool_call_id === 'string'
        ? { parentToolCallId: p.parent_tool_call_id }
        : {}),
      ...(typeof p.root_run_id === 'string' ? { rootRunId: p.root_run_id } : {}),
    }),
  ),
  ContextBuilt: variant(ContextBuilt, { message_count: isCount }, (p, time) => ({
    type: 'ContextBuilt',
    runId: p.run_id,
    time,
    messageCount: p.message_count,
  })),
  ModelStarted: variant(
    ModelStarted,
    { provider: optString, model: optString, iteration: isCount },
    (p, time) => ({
      type: 'ModelStarted',
      runId: p.run_id,
      time,
      iteration: p.iteration,
      provider: opt(p.provider),
      model: opt(p.model),
    }),
  ),
  TextDelta: variant(TextDelta, { delta: isString }, (p, time) => ({
    type: 'TextDelta',
    runId: p.run_id,
    time,
    delta: p.delta,
  })),
  ToolCallStarted: variant(ToolCallStarted, { call_id: isId, tool_name: isString }, (p, time) => ({
    type: 'ToolCallStarted',
    runId: p.run_id,
    time,
    callId: p.call_id,
    toolName: p.tool_name,
  })),
  ToolCallDelta: variant(ToolCallDelta, { call_id: isId, delta: isString }, (p, time) => ({
    type: 'ToolCallDelta',
    runId: p.run_id,
    time,
    callId: p.call_id,
    delta: p.delta,
  })),
  ToolCallCompleted: variant(
    ToolCallCompleted,
    { call: objectOf({ id: isId, name: isString }, ['arguments']) },
    (p, time) => ({
      type: 'ToolCallCompleted',
      runId: p.run_id,
      time,
      callId: p.call.id,
      toolName: p.call.name,
      arguments: p.call.arguments,
    }),
  ),
  ToolExecutionStarted: variant(
    ToolExecutionStarted,
    { call_id: isId, tool_name: isString },
    (p, time) => ({
      type: 'ToolExecutionStarted',
      runId: p.run_id,
      time,
      callId: p.call_id,
      toolName: p.tool_name,
    }),
  ),
  ToolExecutionFinished: variant(
    ToolExecutionFinished,
    { call_id: isId, tool_name: isString, result: isToolResult, duration_ms: optCount },
    (p, time) => ({
      type: 'ToolExecutionFinished',
      runId: p.run_id,
      time,
      callId: p.call_id,
      toolName: p.tool_name,
      result: toToolResult(p.result),
      durationMs: opt(p.duration_ms),
    }),
  ),
  AssistantMessageCommitted: variant(MessageCommitted, { message_id: optString }, (p, time) => ({
    type: 'AssistantMessageCommitted',
    runId: p.run_id,
    time,
    messageId: opt(p.message_id),
  })),
  ToolMessageCommitted: variant(MessageCommitted, { message_id: optString }, (p, time) => ({
    type: 'ToolMessageCommitted',
    runId: p.run_id,
    time,
    messageId: opt(p.message_id),
  })),
  UsageRecorded: variant(
    UsageRecorded,
    {
      usage: objectOf({
        input_tokens: optCount,
        output_tokens: optCount,
        total_tokens: optCount,
        cache_read_input_tokens: optCount,
        cache_creation_input_tokens: optCount,
      }),
    },
    (p, time) => ({
      type: 'UsageRecorded',
      runId: p.run_id,
      time,
      usage: {
        inputTokens: opt(p.usage.input_tokens),
        outputTokens: opt(p.usage.output_tokens),
        cacheReadInputTokens: opt(p.usage.cache_read_input_tokens),
        cacheCreationInputTokens: opt(p.usage.cache_creation_input_tokens),
      },
    }),
  ),
  RunCompleted: variant(
    RunCompleted,
    { finish_reason: isFinishReason, iterations: optCount },
    (p, time) => ({
      type: 'RunCompleted',
      runId: p.run_id,
      time,
      iterations: opt(p.iterations),
      finishReason:
        typeof p.finish_reason === 'object' && p.finish_reason !== null
          ? p.finish_reason.unknown
          : opt(p.finish_reason),
    }),
  ),
  RunFailed: variant(RunFailed, { error: isString }, (p, time) => ({
    type: 'RunFailed',
    runId: p.run_id,
    time,
    error: p.error,
  })),
  RunCancelled: variant(RunCancelled, {}, (p, time) => ({
    type: 'RunCancelled',
    runId: p.run_id,
    time,
  })),
  DoomLoopDetected: variant(DoomLoopDetected, { description: isString }, (p, time) => ({
    type: 'DoomLoopDetected',
    runId: p.run_id,
    time,
    description: p.description,
  })),
  CompactionCircuitOpened: variant(
    CompactionCircuitOpened,
    { consecutive_failures: isCount },
    (p, time) => ({
      type: 'CompactionCircuitOpened',
      runId: p.run_id,
      time,
      consecutiveFailures: p.consecutive_failures,
    }),
  ),
} as const;

/** The 17 behest 0.2.2 variant names. */
export const BEHEST_VARIANTS: readonly string[] = Object.freeze(Object.keys(VARIANTS));

export interface Variant {
  /** `schemaOnly`: without the checks (the schema decides everything; for tests). */
  parse(name: string, payload: unknown, schemaOnly?: boolean): ParseResult;
}

function variant<S extends z.ZodType<{ run_id: string; timestamp: HrTime }>>(
  schema: S,
  fields: Readonly<Record<string, FieldCheck>>,
  convert: (payload: Payload<S>, time: HrTime) => AgentEvent,
): Variant {
  const keys = Object.keys(fields);
  const checks = keys.map((key) => fields[key]!);
  /** The payload's time when the payload is as the schema wants it, else undefined. */
  const checked = (payload: unknown): HrTime | undefined => {
    if (!isRecord(payload)) return undefined;
    const stamp = payload['timestamp'];
    if (!isId(payload['run_id']) || typeof stamp !== 'string') return undefined;
    for (let i = 0; i < keys.length; i += 1) if (!checks[i]!(payload[keys[i]!])) return undefined;
    return parseRfc3339(stamp);
  };
  return {
    parse(name, payload, schemaOnly = false) {
      const time = schemaOnly ? undefined : checked(payload);
      if (time !== undefined) return accepted(name, convert(payload as Payload<S>, time));
      const parsed = schema.safeParse(payload);
      return parsed.success
        ? accepted(name, convert(parsed.data, parsed.data.timestamp))
        : toRejection(name, parsed.error, name);
    },
  };
}
