import type {
  Counter,
  Histogram,
  Meter,
  ObservableCounter,
  UpDownCounter,
} from '@opentelemetry/api';
import * as S from '../semconv.js';
import { talliedCounter } from './counter-tally.js';

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
  /** `agent.cost.usd`: US dollars of priced model calls. */
  readonly cost: Counter;
  /** `agent.tokens`: tokens by pricing class and whether they were priced. */
  readonly tokens: Counter;
  /** The current conventions' model-call metrics (recorded only under the latest conventions). */
  readonly inference: InferenceInstruments;
  readonly runs: Counter;
  readonly runsActive: UpDownCounter;
  readonly iterations: Histogram;
  readonly toolCalls: Counter;
  readonly doomLoops: Counter;
  readonly breakerOpened: Counter;
  readonly runsEvicted: Counter;
}

/** The GenAI conventions v0.1.0's model-call instruments. */
export interface InferenceInstruments {
  readonly duration: Histogram;
  readonly timeToFirstChunk: Histogram;
  readonly timePerOutputChunk: Histogram;
  readonly inputTokens: Counter;
  readonly outputTokens: Counter;
  readonly cacheReadInputTokens: Counter;
  readonly cacheWriteInputTokens: Counter;
  readonly reasoningOutputTokens: Counter;
  readonly operationInputTokens: Histogram;
  readonly operationOutputTokens: Histogram;
}

function createInferenceInstruments(
  meter: Meter,
  histogram: (name: string, unit: string, description: string, buckets: number[]) => Histogram,
): InferenceInstruments {
  const tokens = (name: string, description: string) =>
    talliedCounter(meter, name, { unit: '{token}', description });
  return {
    duration: histogram(
      S.METRIC_GEN_AI_CLIENT_INFERENCE_DURATION,
      's',
      'Duration of model calls.',
      S.OPERATION_DURATION_BUCKETS,
    ),
    timeToFirstChunk: histogram(
      S.METRIC_GEN_AI_CLIENT_INFERENCE_TIME_TO_FIRST_CHUNK,
      's',
      'Time from a model call start to its first streamed chunk.',
      S.OPERATION_DURATION_BUCKETS,
    ),
    timePerOutputChunk: histogram(
      S.METRIC_GEN_AI_CLIENT_INFERENCE_TIME_PER_OUTPUT_CHUNK,
      's',
      'Time between streamed chunks of a model call, for each chunk after the first.',
      S.CHUNK_INTERVAL_BUCKETS,
    ),
    inputTokens: tokens(
      S.METRIC_GEN_AI_CLIENT_INFERENCE_USAGE_INPUT_TOKENS,
      'Input tokens used, cached ones included.',
    ),
    outputTokens: tokens(
      S.METRIC_GEN_AI_CLIENT_INFERENCE_USAGE_OUTPUT_TOKENS,
      'Output tokens used, reasoning included.',
    ),
    cacheReadInputTokens: tokens(
      S.METRIC_GEN_AI_CLIENT_INFERENCE_USAGE_CACHE_READ_INPUT_TOKENS,
      "Input tokens served from the provider's cache.",
    ),
    cacheWriteInputTokens: tokens(
      S.METRIC_GEN_AI_CLIENT_INFERENCE_USAGE_CACHE_WRITE_INPUT_TOKENS,
      "Input tokens written to the provider's cache.",
    ),
    reasoningOutputTokens: tokens(
      S.METRIC_GEN_AI_CLIENT_INFERENCE_USAGE_REASONING_OUTPUT_TOKENS,
      'Output tokens spent on reasoning.',
    ),
    operationInputTokens: histogram(
      S.METRIC_GEN_AI_CLIENT_INFERENCE_OPERATION_INPUT_TOKENS,
      '{token}',
      'Input tokens per model call.',
      S.TOKEN_USAGE_BUCKETS,
    ),
    operationOutputTokens: histogram(
      S.METRIC_GEN_AI_CLIENT_INFERENCE_OPERATION_OUTPUT_TOKENS,
      '{token}',
      'Output tokens per model call.',
      S.TOKEN_USAGE_BUCKETS,
    ),
  };
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
    cost: talliedCounter(meter, S.METRIC_AGENT_COST_USD, {
      unit: '{USD}',
      description: 'Cost of priced model calls in US dollars, by provider, model and agent.',
    }),
    tokens: talliedCounter(meter, S.METRIC_AGENT_TOKENS, {
      unit: '{token}',
      description: 'Tokens of model calls by pricing class, priced or not.',
    }),
    inference: createInferenceInstruments(meter, histogram),
    runs: talliedCounter(meter, S.METRIC_AGENT_RUNS, {
      unit: '{run}',
      description: 'Finished agent runs, by outcome.',
    }),
    runsActive: talliedCounter(
      meter,
      S.METRIC_AGENT_RUNS_ACTIVE,
      { unit: '{run}', description: 'Agent runs in progress.' },
      'up_down_counter',
    ),
    iterations: histogram(
      S.METRIC_AGENT_ITERATIONS,
      '{iteration}',
      'Model iterations per finished run.',
      S.ITERATION_BUCKETS,
    ),
    toolCalls: talliedCounter(meter, S.METRIC_AGENT_TOOL_CALLS, {
      unit: '{call}',
      description: 'Finished tool executions, by outcome.',
    }),
    doomLoops: talliedCounter(meter, S.METRIC_AGENT_DOOM_LOOPS, {
      unit: '{event}',
      description: 'Doom loops detected by the runtime.',
    }),
    breakerOpened: talliedCounter(meter, S.METRIC_AGENT_COMPACTION_CIRCUIT_BREAKER_OPENED, {
      unit: '{event}',
      description: 'Compaction circuit breaker trips.',
    }),
    runsEvicted: talliedCounter(meter, S.METRIC_AGENT_BRIDGE_RUNS_EVICTED, {
      unit: '{run}',
      description: 'Runs the bridge ended as abandoned, by reason.',
    }),
  };
}

/** `agent_bridge.limits.hit`: observed from the bridge's own tally (see limit-tally.ts). */
export function createLimitsCounter(meter: Meter): ObservableCounter {
  return meter.createObservableCounter(S.METRIC_AGENT_BRIDGE_LIMITS_HIT, {
    unit: '{event}',
    description: "Times one of the bridge's limits cut or dropped something, by limit.",
  });
}

/** `agent_bridge.events`: observed from the bridge's own tally (see event-tally.ts). */
export function createEventsCounter(meter: Meter): ObservableCounter {
  return meter.createObservableCounter(S.METRIC_AGENT_BRIDGE_EVENTS, {
    unit: '{event}',
    description: 'Input events seen by the bridge, by outcome.',
  });
}
