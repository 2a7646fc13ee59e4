import type { z } from 'zod';
import { behestRunIdOf } from './behest-run-id.js';
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
import type { Dialect, ParseResult } from '../shared/parse-result.js';
import { accepted, ignoredVariant, isRecord, rejectedSchema } from '../shared/parse-result.js';
import { quickFields } from '../shared/quick-fields.js';
import type { FieldKind } from '../shared/quick-fields.js';
import { toRejection } from '../shared/zod-issue.js';

// behest 0.2.2 serde JSON: externally tagged `{"Variant":{...}}` (schemas in behest-schemas.ts).

type Out<S extends z.ZodType> = z.output<S>;
const opt = <T>(value: T | null | undefined): T | undefined => value ?? undefined;

function toToolResult(result: Out<typeof ToolExecutionResult>): ToolResult {
  return 'Success' in result
    ? { ok: true, output: result.Success.output }
    : { ok: false, error: result.Failure.error };
}

/**
 * One entry per behest variant: its payload schema, the conversion to a canonical event and, for
 * payloads of plain fields, those fields for the quick check (see `quickFields`).
 */
const VARIANTS = {
  RunStarted: variant(
    RunStarted,
    (p) => ({
      type: 'RunStarted',
      runId: p.run_id,
      time: p.timestamp,
      sessionId: opt(p.session_id),
      provider: opt(p.provider),
      model: opt(p.model),
      ...(typeof p.agent_name === 'string' ? { agentName: p.agent_name } : {}),
      ...(typeof p.parent_run_id === 'string' ? { parentRunId: p.parent_run_id } : {}),
      ...(typeof p.parent_tool_call_id === 'string'
        ? { parentToolCallId: p.parent_tool_call_id }
        : {}),
    }),
    {
      session_id: 'string?',
      provider: 'string?',
      model: 'string?',
      agent_name: 'string?',
      parent_run_id: 'string?',
      parent_tool_call_id: 'string?',
    },
  ),
  ContextBuilt: variant(
    ContextBuilt,
    (p) => ({
      type: 'ContextBuilt',
      runId: p.run_id,
      time: p.timestamp,
      messageCount: p.message_count,
    }),
    { message_count: 'count' },
  ),
  ModelStarted: variant(
    ModelStarted,
    (p) => ({
      type: 'ModelStarted',
      runId: p.run_id,
      time: p.timestamp,
      iteration: p.iteration,
      provider: opt(p.provider),
      model: opt(p.model),
    }),
    { provider: 'string?', model: 'string?', iteration: 'count' },
  ),
  TextDelta: variant(
    TextDelta,
    (p) => ({ type: 'TextDelta', runId: p.run_id, time: p.timestamp, delta: p.delta }),
    { delta: 'string' },
  ),
  ToolCallStarted: variant(
    ToolCallStarted,
    (p) => ({
      type: 'ToolCallStarted',
      runId: p.run_id,
      time: p.timestamp,
      callId: p.call_id,
      toolName: p.tool_name,
    }),
    { call_id: 'id', tool_name: 'string' },
  ),
  ToolCallDelta: variant(
    ToolCallDelta,
    (p) => ({
      type: 'ToolCallDelta',
      runId: p.run_id,
      time: p.timestamp,
      callId: p.call_id,
      delta: p.delta,
    }),
    { call_id: 'id', delta: 'string' },
  ),
  ToolCallCompleted: variant(ToolCallCompleted, (p) => ({
    type: 'ToolCallCompleted',
    runId: p.run_id,
    time: p.timestamp,
    callId: p.call.id,
    toolName: p.call.name,
    arguments: p.call.arguments,
  })),
  ToolExecutionStarted: variant(
    ToolExecutionStarted,
    (p) => ({
      type: 'ToolExecutionStarted',
      runId: p.run_id,
      time: p.timestamp,
      callId: p.call_id,
      toolName: p.tool_name,
    }),
    { call_id: 'id', tool_name: 'string' },
  ),
  ToolExecutionFinished: variant(ToolExecutionFinished, (p) => ({
    type: 'ToolExecutionFinished',
    runId: p.run_id,
    time: p.timestamp,
    callId: p.call_id,
    toolName: p.tool_name,
    result: toToolResult(p.result),
    durationMs: opt(p.duration_ms),
  })),
  AssistantMessageCommitted: variant(
    MessageCommitted,
    (p) => ({
      type: 'AssistantMessageCommitted',
      runId: p.run_id,
      time: p.timestamp,
      messageId: opt(p.message_id),
    }),
    { message_id: 'string?' },
  ),
  ToolMessageCommitted: variant(
    MessageCommitted,
    (p) => ({
      type: 'ToolMessageCommitted',
      runId: p.run_id,
      time: p.timestamp,
      messageId: opt(p.message_id),
    }),
    { message_id: 'string?' },
  ),
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
  RunFailed: variant(
    RunFailed,
    (p) => ({ type: 'RunFailed', runId: p.run_id, time: p.timestamp, error: p.error }),
    { error: 'string' },
  ),
  RunCancelled: variant(
    RunCancelled,
    (p) => ({ type: 'RunCancelled', runId: p.run_id, time: p.timestamp }),
    {},
  ),
  DoomLoopDetected: variant(
    DoomLoopDetected,
    (p) => ({
      type: 'DoomLoopDetected',
      runId: p.run_id,
      time: p.timestamp,
      description: p.description,
    }),
    { description: 'string' },
  ),
  CompactionCircuitOpened: variant(
    CompactionCircuitOpened,
    (p) => ({
      type: 'CompactionCircuitOpened',
      runId: p.run_id,
      time: p.timestamp,
      consecutiveFailures: p.consecutive_failures,
    }),
    { consecutive_failures: 'count' },
  ),
} as const;

/** The 17 behest 0.2.2 variant names. */
export const BEHEST_VARIANTS: readonly string[] = Object.freeze(Object.keys(VARIANTS));

interface Variant {
  /** `schemaOnly`: without the quick check (the schema decides everything; for tests). */
  parse(name: string, payload: unknown, schemaOnly?: boolean): ParseResult;
}

function variant<S extends z.ZodType>(
  schema: S,
  convert: (payload: Out<S>) => AgentEvent,
  fields?: Readonly<Record<string, FieldKind>>,
): Variant {
  const quick = fields === undefined ? undefined : quickFields(fields);
  return {
    parse(name, payload, schemaOnly = false) {
      const fast = schemaOnly ? undefined : quick?.(payload);
      if (fast !== undefined) return accepted(name, convert(fast as Out<S>));
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

/** A behest payload of variant `name`; `schemaOnly` skips the quick check (for tests). */
export function parseBehestPayload(
  name: string,
  payload: unknown,
  schemaOnly = false,
): ParseResult {
  const entry = Object.hasOwn(VARIANTS, name) ? VARIANTS[name as keyof typeof VARIANTS] : undefined;
  if (entry === undefined) return ignoredVariant('behest', name);
  return entry.parse(name, payload, schemaOnly);
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
  return parseBehestPayload(key, (value as Record<string, unknown>)[key]);
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
  runIdOf: behestRunIdOf,
};
