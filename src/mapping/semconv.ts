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
export const ATTR_AGENT_ITERATION_NUMBER = 'agent.iteration.number';
export const ATTR_AGENT_CONTEXT_MESSAGE_COUNT = 'agent.context.message_count';
export const ATTR_AGENT_TOOL_OUTCOME = 'agent.tool.outcome';
export const ATTR_AGENT_SPAN_INCOMPLETE = 'agent.span.incomplete';
export const ATTR_AGENT_DOOM_LOOP_DESCRIPTION = 'agent.doom_loop.description';
export const ATTR_AGENT_COMPACTION_CONSECUTIVE_FAILURES = 'agent.compaction.consecutive_failures';
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
