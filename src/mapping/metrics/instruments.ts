import type {
  Attributes,
  Counter,
  Histogram,
  Meter,
  ObservableCounter,
  UpDownCounter,
} from '@opentelemetry/api';
import * as S from '../semconv.js';

/** The bridge's instruments, created once per sink. */
export interface Instruments {
  readonly tokenUsage: Histogram;
  readonly operationDuration: Histogram;
  readonly timeToFirstChunk: Histogram;
  readonly invokeAgentDuration: Histogram;
  readonly executeToolDuration: Histogram;
  /** Recorded only under the latest GenAI conventions. */
  readonly inferenceCalls: Histogram;
  readonly agentToolCalls: Histogram;
  readonly runs: Counter;
  readonly runsActive: UpDownCounter;
  readonly iterations: Histogram;
  readonly toolCalls: Counter;
  readonly doomLoops: Counter;
  readonly breakerOpened: Counter;
  readonly runsEvicted: Counter;
  readonly limitsHit: Counter;
}

export function createInstruments(meter: Meter): Instruments {
  const histogram = (name: string, unit: string, description: string, buckets: number[]) =>
    meter.createHistogram(name, {
      unit,
      description,
      advice: { explicitBucketBoundaries: buckets },
    });
  return {
    tokenUsage: histogram(
      S.METRIC_GEN_AI_CLIENT_TOKEN_USAGE,
      '{token}',
      'Tokens used per model call, by token type.',
      S.TOKEN_USAGE_BUCKETS,
    ),
    operationDuration: histogram(
      S.METRIC_GEN_AI_CLIENT_OPERATION_DURATION,
      's',
      'Duration of model calls.',
      S.OPERATION_DURATION_BUCKETS,
    ),
    timeToFirstChunk: histogram(
      S.METRIC_GEN_AI_CLIENT_OPERATION_TIME_TO_FIRST_CHUNK,
      's',
      'Time from a model call start to its first streamed chunk.',
      S.OPERATION_DURATION_BUCKETS,
    ),
    invokeAgentDuration: histogram(
      S.METRIC_GEN_AI_INVOKE_AGENT_DURATION,
      's',
      'Duration of agent runs.',
      S.INVOKE_AGENT_DURATION_BUCKETS,
    ),
    executeToolDuration: histogram(
      S.METRIC_GEN_AI_EXECUTE_TOOL_DURATION,
      's',
      'Duration of tool executions.',
      S.OPERATION_DURATION_BUCKETS,
    ),
    inferenceCalls: histogram(
      S.METRIC_GEN_AI_INVOKE_AGENT_INFERENCE_CALLS,
      '{inference_call}',
      'Model calls per agent invocation.',
      S.CALL_COUNT_BUCKETS,
    ),
    agentToolCalls: histogram(
      S.METRIC_GEN_AI_INVOKE_AGENT_TOOL_CALLS,
      '{tool_call}',
      'Tool executions per agent invocation.',
      S.CALL_COUNT_BUCKETS,
    ),
    runs: meter.createCounter(S.METRIC_AGENT_RUNS, {
      unit: '{run}',
      description: 'Finished agent runs, by outcome.',
    }),
    runsActive: meter.createUpDownCounter(S.METRIC_AGENT_RUNS_ACTIVE, {
      unit: '{run}',
      description: 'Agent runs in progress.',
    }),
    iterations: histogram(
      S.METRIC_AGENT_ITERATIONS,
      '{iteration}',
      'Model iterations per finished run.',
      S.ITERATION_BUCKETS,
    ),
    toolCalls: meter.createCounter(S.METRIC_AGENT_TOOL_CALLS, {
      unit: '{call}',
      description: 'Finished tool executions, by outcome.',
    }),
    doomLoops: meter.createCounter(S.METRIC_AGENT_DOOM_LOOPS, {
      unit: '{event}',
      description: 'Doom loops detected by the runtime.',
    }),
    breakerOpened: meter.createCounter(S.METRIC_AGENT_COMPACTION_CIRCUIT_BREAKER_OPENED, {
      unit: '{event}',
      description: 'Compaction circuit breaker trips.',
    }),
    runsEvicted: meter.createCounter(S.METRIC_AGENT_BRIDGE_RUNS_EVICTED, {
      unit: '{run}',
      description: 'Runs the bridge ended as abandoned, by reason.',
    }),
    limitsHit: meter.createCounter(S.METRIC_AGENT_BRIDGE_LIMITS_HIT, {
      unit: '{event}',
      description: "Times one of the bridge's limits cut or dropped something, by limit.",
    }),
  };
}

/** `agent_bridge.events`: observed from the bridge's own tally (see event-tally.ts). */
export function createEventsCounter(meter: Meter): ObservableCounter {
  return meter.createObservableCounter(S.METRIC_AGENT_BRIDGE_EVENTS, {
    unit: '{event}',
    description: 'Input events seen by the bridge, by outcome.',
  });
}

/** Low-cardinality facts about a model: the only things metric attributes are built from. */
export interface ModelIdentity {
  readonly provider: string | undefined;
  readonly model: string | undefined;
}

/** `gen_ai.client.*` attributes for a chat call (whitelist). */
export function chatMetricAttributes(model: ModelIdentity, errorType?: string): Attributes {
  const attributes: Attributes = { [S.ATTR_GEN_AI_OPERATION_NAME]: S.GEN_AI_OPERATION_CHAT };
  if (model.provider !== undefined) attributes[S.ATTR_GEN_AI_PROVIDER_NAME] = model.provider;
  if (model.model !== undefined) attributes[S.ATTR_GEN_AI_REQUEST_MODEL] = model.model;
  if (errorType !== undefined) attributes[S.ATTR_ERROR_TYPE] = errorType;
  return attributes;
}

/** Attributes that identify an agent and its model on run-level metrics (whitelist). */
export function agentMetricAttributes(
  agentName: string | undefined,
  model?: ModelIdentity,
): Attributes {
  const attributes: Attributes = {};
  if (agentName !== undefined) attributes[S.ATTR_GEN_AI_AGENT_NAME] = agentName;
  if (model?.provider !== undefined) attributes[S.ATTR_GEN_AI_PROVIDER_NAME] = model.provider;
  if (model?.model !== undefined) attributes[S.ATTR_GEN_AI_REQUEST_MODEL] = model.model;
  return attributes;
}
