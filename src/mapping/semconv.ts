// Attribute and metric names used by the bridge. GenAI names are copied from the OpenTelemetry
// semantic conventions v1.41 (incubating; copied so that nothing imports `/incubating` at run
// time). `agent.*` and `agent_bridge.*` are the bridge's own namespaces.

export const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
export const ATTR_GEN_AI_PROVIDER_NAME = 'gen_ai.provider.name';
export const ATTR_GEN_AI_REQUEST_MODEL = 'gen_ai.request.model';
export const ATTR_GEN_AI_CONVERSATION_ID = 'gen_ai.conversation.id';
export const ATTR_GEN_AI_AGENT_NAME = 'gen_ai.agent.name';
export const ATTR_GEN_AI_RESPONSE_FINISH_REASONS = 'gen_ai.response.finish_reasons';
export const ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK = 'gen_ai.response.time_to_first_chunk';
export const ATTR_GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
export const ATTR_GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
export const ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS = 'gen_ai.usage.cache_read.input_tokens';
/** The current conventions' name for cache-creation tokens (emitted beside the v1.41 name). */
export const ATTR_GEN_AI_USAGE_CACHE_WRITE_INPUT_TOKENS = 'gen_ai.usage.cache_write.input_tokens';
export const ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS =
  'gen_ai.usage.cache_creation.input_tokens';
/** Output tokens spent on reasoning (part of the output tokens). */
export const ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS = 'gen_ai.usage.reasoning.output_tokens';
/** Cost of a model call: the draft of the GenAI conventions (`gen_ai.usage.cost.*`). */
export const ATTR_GEN_AI_USAGE_COST_AMOUNT = 'gen_ai.usage.cost.amount';
export const ATTR_GEN_AI_USAGE_COST_CURRENCY = 'gen_ai.usage.cost.currency';
export const ATTR_GEN_AI_USAGE_COST_SOURCE = 'gen_ai.usage.cost.source';
export const GEN_AI_USAGE_COST_CURRENCY_USD = 'USD';
/** The cost was computed by the bridge from tokens and a price table. */
export const GEN_AI_USAGE_COST_SOURCE_LOCAL = 'local';
/** The current conventions' token modality; the runtimes do not report one. */
export const ATTR_GEN_AI_TOKEN_MODALITY = 'gen_ai.token.modality';
export const GEN_AI_TOKEN_MODALITY_UNKNOWN = 'unknown';
/** General semantic conventions: the session a run belongs to (beside `gen_ai.conversation.id`). */
export const ATTR_SESSION_ID = 'session.id';
export const ATTR_GEN_AI_TOOL_NAME = 'gen_ai.tool.name';
export const ATTR_GEN_AI_TOOL_CALL_ID = 'gen_ai.tool.call.id';
export const ATTR_GEN_AI_TOOL_TYPE = 'gen_ai.tool.type';
export const ATTR_GEN_AI_TOOL_CALL_ARGUMENTS = 'gen_ai.tool.call.arguments';
export const ATTR_GEN_AI_TOOL_CALL_RESULT = 'gen_ai.tool.call.result';
export const ATTR_GEN_AI_OUTPUT_MESSAGES = 'gen_ai.output.messages';
export const ATTR_GEN_AI_TOKEN_TYPE = 'gen_ai.token.type';
export const ATTR_ERROR_TYPE = 'error.type';
export const ATTR_EXCEPTION_MESSAGE = 'exception.message';

export const GEN_AI_OPERATION_INVOKE_AGENT = 'invoke_agent';
export const GEN_AI_OPERATION_CHAT = 'chat';
export const GEN_AI_OPERATION_EXECUTE_TOOL = 'execute_tool';
export const GEN_AI_TOOL_TYPE_FUNCTION = 'function';
export const GEN_AI_TOKEN_TYPE_INPUT = 'input';
export const GEN_AI_TOKEN_TYPE_OUTPUT = 'output';
export const ERROR_TYPE_OTHER = '_OTHER';

export const ATTR_AGENT_RUN_ID = 'agent.run.id';
export const ATTR_AGENT_RUN_OUTCOME = 'agent.run.outcome';
export const ATTR_AGENT_RUN_ITERATIONS = 'agent.run.iterations';
export const ATTR_AGENT_RUN_SYNTHESIZED = 'agent.run.synthesized';
/** A sub-agent's parent run (`RunStarted.parentRunId`). */
export const ATTR_AGENT_RUN_PARENT_ID = 'agent.run.parent_id';
export const ATTR_AGENT_ITERATION_NUMBER = 'agent.iteration.number';
export const ATTR_AGENT_CONTEXT_MESSAGE_COUNT = 'agent.context.message_count';
export const ATTR_AGENT_TOOL_OUTCOME = 'agent.tool.outcome';
export const ATTR_AGENT_SPAN_INCOMPLETE = 'agent.span.incomplete';
export const ATTR_AGENT_DOOM_LOOP_DESCRIPTION = 'agent.doom_loop.description';
export const ATTR_AGENT_COMPACTION_CONSECUTIVE_FAILURES = 'agent.compaction.consecutive_failures';
/** `priced` or `unpriced` (never $0 for a model without a price). */
export const ATTR_AGENT_COST_STATUS = 'agent.cost.status';
/** Why a call is unpriced: `no_model`, `unknown_model`, `price_error`. */
export const ATTR_AGENT_COST_UNPRICED_REASON = 'agent.cost.unpriced_reason';
/** The price table (and its version) that priced the call. */
export const ATTR_AGENT_COST_PRICE_TABLE = 'agent.cost.price_table';
/** A run's cost in US dollars: the sum of its priced calls. */
export const ATTR_AGENT_RUN_COST_USD = 'agent.run.cost.usd';
/** `priced` (every call priced), `partial`, or `unpriced` (none). */
export const ATTR_AGENT_RUN_COST_STATUS = 'agent.run.cost.status';
/** The pricing class of tokens: `input` (uncached), `cache_read`, `cache_write`, `output`, `reasoning`. */
export const ATTR_AGENT_TOKEN_CLASS = 'agent.token.class';
export const AGENT_COST_PRICED = 'priced';
export const AGENT_COST_UNPRICED = 'unpriced';
export const AGENT_COST_PARTIAL = 'partial';
export const ATTR_AGENT_BRIDGE_DIALECT = 'agent_bridge.dialect';
export const ATTR_AGENT_BRIDGE_EVENT_OUTCOME = 'agent_bridge.event.outcome';
export const ATTR_AGENT_BRIDGE_REASON = 'agent_bridge.reason';
export const ATTR_AGENT_BRIDGE_LIMIT = 'agent_bridge.limit';

export const SPAN_AGENT_ITERATION = 'agent.iteration';
export const EVENT_TOOL_CALL_REQUESTED = 'agent.tool_call.requested';
export const EVENT_DOOM_LOOP_DETECTED = 'agent.doom_loop.detected';
export const EVENT_CIRCUIT_BREAKER_OPENED = 'agent.compaction.circuit_breaker.opened';
/** Usage reported after its model call's span was made: counted on the run and in metrics. */
export const EVENT_USAGE_AFTER_CALL = 'agent.usage.after_call';
export const EVENT_EXCEPTION = 'exception';

export const METRIC_GEN_AI_CLIENT_TOKEN_USAGE = 'gen_ai.client.token.usage';
export const METRIC_GEN_AI_CLIENT_OPERATION_DURATION = 'gen_ai.client.operation.duration';
export const METRIC_GEN_AI_CLIENT_OPERATION_TIME_TO_FIRST_CHUNK =
  'gen_ai.client.operation.time_to_first_chunk';
export const METRIC_GEN_AI_INVOKE_AGENT_DURATION = 'gen_ai.invoke_agent.duration';
export const METRIC_GEN_AI_EXECUTE_TOOL_DURATION = 'gen_ai.execute_tool.duration';
export const METRIC_GEN_AI_INVOKE_AGENT_INFERENCE_CALLS = 'gen_ai.invoke_agent.inference_calls';
export const METRIC_GEN_AI_INVOKE_AGENT_TOOL_CALLS = 'gen_ai.invoke_agent.tool_calls';
/** Calls per agent invocation: 1 through 128, doubling. */
export const CALL_COUNT_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128];
/** The current conventions' (GenAI semantic conventions v0.1.0) model-call metrics. */
export const METRIC_GEN_AI_CLIENT_INFERENCE_DURATION = 'gen_ai.client.inference.duration';
export const METRIC_GEN_AI_CLIENT_INFERENCE_TIME_TO_FIRST_CHUNK =
  'gen_ai.client.inference.time_to_first_chunk';
export const METRIC_GEN_AI_CLIENT_INFERENCE_TIME_PER_OUTPUT_CHUNK =
  'gen_ai.client.inference.time_per_output_chunk';
export const METRIC_GEN_AI_CLIENT_INFERENCE_USAGE_INPUT_TOKENS =
  'gen_ai.client.inference.usage.input_tokens';
export const METRIC_GEN_AI_CLIENT_INFERENCE_USAGE_OUTPUT_TOKENS =
  'gen_ai.client.inference.usage.output_tokens';
export const METRIC_GEN_AI_CLIENT_INFERENCE_USAGE_CACHE_READ_INPUT_TOKENS =
  'gen_ai.client.inference.usage.cache_read.input_tokens';
export const METRIC_GEN_AI_CLIENT_INFERENCE_USAGE_CACHE_WRITE_INPUT_TOKENS =
  'gen_ai.client.inference.usage.cache_write.input_tokens';
export const METRIC_GEN_AI_CLIENT_INFERENCE_USAGE_REASONING_OUTPUT_TOKENS =
  'gen_ai.client.inference.usage.reasoning.output_tokens';
export const METRIC_GEN_AI_CLIENT_INFERENCE_OPERATION_INPUT_TOKENS =
  'gen_ai.client.inference.operation.input_tokens';
export const METRIC_GEN_AI_CLIENT_INFERENCE_OPERATION_OUTPUT_TOKENS =
  'gen_ai.client.inference.operation.output_tokens';
/** Buckets for the time between streamed chunks, in seconds. */
export const CHUNK_INTERVAL_BUCKETS = [
  0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5,
];
export const METRIC_AGENT_COST_USD = 'agent.cost.usd';
export const METRIC_AGENT_TOKENS = 'agent.tokens';
export const METRIC_AGENT_RUNS = 'agent.runs';
export const METRIC_AGENT_RUNS_ACTIVE = 'agent.runs.active';
export const METRIC_AGENT_RUNS_OPEN = 'agent.runs.open';
export const METRIC_AGENT_RUNS_OPEN_OLDEST_AGE = 'agent.runs.open.oldest_age';
export const METRIC_AGENT_RUNS_OPEN_TOKENS = 'agent.runs.open.tokens';
export const METRIC_AGENT_ITERATIONS = 'agent.iterations';
export const METRIC_AGENT_TOOL_CALLS = 'agent.tool.calls';
export const METRIC_AGENT_DOOM_LOOPS = 'agent.doom_loops';
export const METRIC_AGENT_COMPACTION_CIRCUIT_BREAKER_OPENED =
  'agent.compaction.circuit_breaker.opened';
export const METRIC_AGENT_BRIDGE_EVENTS = 'agent_bridge.events';
export const METRIC_AGENT_BRIDGE_RUNS_EVICTED = 'agent_bridge.runs.evicted';
export const METRIC_AGENT_BRIDGE_LIMITS_HIT = 'agent_bridge.limits.hit';

/** Semconv buckets for `gen_ai.client.token.usage`: 1, 4, 16, …, 67108864. */
export const TOKEN_USAGE_BUCKETS = Array.from({ length: 14 }, (_, i) => 4 ** i);
/** Semconv buckets for GenAI durations in seconds: 0.01 … 81.92. */
export const OPERATION_DURATION_BUCKETS = Array.from({ length: 14 }, (_, i) =>
  roundTo(0.01 * 2 ** i),
);
/** Buckets for a whole run in seconds: 0.1 … 409.6. */
export const INVOKE_AGENT_DURATION_BUCKETS = Array.from({ length: 13 }, (_, i) =>
  roundTo(0.1 * 2 ** i),
);
/** Buckets for iterations per run. */
export const ITERATION_BUCKETS = [1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 50, 100];

function roundTo(value: number): number {
  return Math.round(value * 100) / 100;
}
