import type { Context, MeterProvider, TracerProvider } from '@opentelemetry/api';
import type { InputDialect } from './events/dialect-name.js';
import type { RunSummary } from './mapping/tracker-context.js';
import type { PricesOption } from './pricing/resolve-prices.js';

export type Env = Readonly<Record<string, string | undefined>>;

/** Options of `createAgentOtelSink`. Code options win over the environment, which wins over DEFAULTS. */
export interface AgentOtelSinkOptions {
  /** `gen_ai.agent.name` on runs and run metrics. Env `AGENT_OTEL_BRIDGE_AGENT_NAME`. Default: none. */
  readonly agentName?: string;
  /** Where spans go. Default: the global tracer provider of `@opentelemetry/api`. */
  readonly tracerProvider?: TracerProvider;
  /** Where metrics go. Default: the global meter provider of `@opentelemetry/api`. */
  readonly meterProvider?: MeterProvider;
  /** Runs join this context's trace (e.g. the host's active span). Default: each run is its own trace. */
  readonly parentContext?: Context;
  /**
   * Capture prompts' outputs, tool arguments and tool results (scrubbed, truncated).
   * Env `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`. Default: false.
   */
  readonly captureContent?: boolean;
  /**
   * Which GenAI conventions to follow: `v1.41` (the released text), or `latest` (their current
   * development: `gen_ai.usage.cache_write.input_tokens` beside `cache_creation`, no provider on
   * the internal `invoke_agent` span, `gen_ai.invoke_agent.inference_calls` / `tool_calls`
   * histograms). Env `OTEL_SEMCONV_STABILITY_OPT_IN` listing `gen_ai_latest_experimental`.
   * Default: `v1.41`.
   */
  readonly genAiConventions?: 'v1.41' | 'latest';
  /**
   * How model calls are priced: the path of a price file (JSON, see docs/cost.md) or a price list,
   * asked before the bundled table (`@pydantic/genai-prices`); `false` (or env `off`): no costs.
   * Env `AGENT_OTEL_BRIDGE_PRICES`. Default: the bundled table alone.
   */
  readonly prices?: PricesOption;
  /** Limit of each captured content attribute, in UTF-8 bytes. Env `AGENT_OTEL_BRIDGE_MAX_CONTENT_BYTES`. Default: 8192. */
  readonly maxContentBytes?: number;
  /** A run with no event for this long is ended as abandoned. Env `AGENT_OTEL_BRIDGE_IDLE_TIMEOUT_MS`. Default: 1 800 000 (30 min). */
  readonly idleTimeoutMillis?: number;
  /** Open runs kept at most; the least recently active is abandoned beyond it. Env `AGENT_OTEL_BRIDGE_MAX_OPEN_RUNS`. Default: 10 000. */
  readonly maxOpenRuns?: number;
  /** Secret patterns masked in every free text that leaves the process. Default: `DEFAULT_SCRUB_PATTERNS`. */
  readonly scrubPatterns?: readonly RegExp[];
  /**
   * Also mask personal data (payment card numbers, Luhn-checked, and e-mail addresses). Env
   * `AGENT_OTEL_BRIDGE_SCRUB_PERSONAL_DATA`. Default: true.
   */
  readonly scrubPersonalData?: boolean;
  /**
   * Export the text of run and tool errors (scrubbed like any free text) as span status messages
   * and `exception.message`; when false, only the error's class (`error.type`) leaves the process.
   * Env `AGENT_OTEL_BRIDGE_EXPORT_ERROR_TEXT`. Default: true.
   */
  readonly exportErrorText?: boolean;
  /** Dialect of `handleJson` input. Env `AGENT_OTEL_BRIDGE_DIALECT`. Default: `auto`. */
  readonly dialect?: InputDialect;
  /** Environment to read. Default: `process.env`. */
  readonly env?: Env;
  /** Wall clock in milliseconds, for the idle timeout and arrival times. Default: `Date.now`. */
  readonly now?: () => number;
  /** Called for every run that ends, with its id, trace id and outcome. Default: none. */
  readonly onRunEnd?: (run: RunSummary) => void;
  /** Model iterations one run may have; more are rejected (`limit_iterations`). Env `AGENT_OTEL_BRIDGE_MAX_ITERATIONS_PER_RUN`. Default: 1000. */
  readonly maxIterationsPerRun?: number;
  /** Tool executions one run may have; more are rejected (`limit_tools`). Env `AGENT_OTEL_BRIDGE_MAX_TOOLS_PER_RUN`. Default: 2000. */
  readonly maxToolsPerRun?: number;
  /** Span events the bridge adds to one span; more are dropped and counted. Env `AGENT_OTEL_BRIDGE_MAX_EVENTS_PER_SPAN`. Default: 128. */
  readonly maxEventsPerSpan?: number;
  /** Runtime-specific attributes (annotations) on one span; more are dropped and counted. Env `AGENT_OTEL_BRIDGE_MAX_ATTRIBUTES_PER_SPAN`. Default: 64, at most 96 (the contract's own attributes always fit in the SDK's 128). */
  readonly maxAttributesPerSpan?: number;
  /** Longest free-text attribute value in characters (error texts, annotations); longer ones are cut and counted. Env `AGENT_OTEL_BRIDGE_MAX_ATTRIBUTE_LENGTH`. Default: 4096. */
  readonly maxAttributeLength?: number;
  /** Deepest JSON nesting of an input line; deeper lines are rejected (`json_too_deep`). Env `AGENT_OTEL_BRIDGE_MAX_JSON_DEPTH`. Default: 64. */
  readonly maxJsonDepth?: number;
  /**
   * Distinct provider, model and tool names recorded as metric attribute values; later new ones are
   * recorded as `_OTHER` (spans keep them). Env `AGENT_OTEL_BRIDGE_MAX_METRIC_LABEL_VALUES`.
   * Default: 100.
   */
  readonly maxMetricLabelValues?: number;
  /**
   * How long each event is held, in wall-clock milliseconds, so that its run's events are applied
   * in the order of their own timestamps however they arrive (0: no waiting). Env
   * `AGENT_OTEL_BRIDGE_REORDER_WINDOW_MS`. Default: 1000.
   */
  readonly reorderWindowMillis?: number;
  /**
   * Events of one run held at most for reordering; beyond it the earliest is applied at once (0:
   * none held).
   * Env `AGENT_OTEL_BRIDGE_REORDER_WINDOW_EVENTS`. Default: 256.
   */
  readonly reorderWindowEvents?: number;
  /**
   * How long a run stays open after its terminal event arrived, in wall-clock milliseconds, for
   * what the runtime published before it but arrives after it (0: none). Env
   * `AGENT_OTEL_BRIDGE_LATE_GRACE_MS`. Default: 5000.
   */
  readonly lateGraceMillis?: number;
  /**
   * The input is a log read at its own pace (a file, a pipe) rather than a broker's live feed:
   * read at machine speed, wall-clock windows would hold far more than a window's worth, so the
   * grace period also ends after `lateGraceEvents` further input events, whichever comes first
   * (the reorder window is bounded in events always). Default: false; `ingest` sets it.
   */
  readonly countWindowsInEvents?: boolean;
  /**
   * With `countWindowsInEvents`: further input events after which a run's grace period ends.
   * Env `AGENT_OTEL_BRIDGE_LATE_GRACE_EVENTS`. Default: 1000.
   */
  readonly lateGraceEvents?: number;
  /** Events held for reordering over all runs at most. Env `AGENT_OTEL_BRIDGE_MAX_HELD_EVENTS`. Default: 50 000. */
  readonly maxHeldEvents?: number;
}
