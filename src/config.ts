import { diag } from '@opentelemetry/api';
import type { Context, MeterProvider, TracerProvider } from '@opentelemetry/api';
import { INPUT_DIALECTS } from './dialects/detect.js';
import type { InputDialect } from './dialects/detect.js';
import { DEFAULT_SCRUB_PATTERNS } from './mapping/scrub.js';
import type { RunSummary } from './mapping/tracker-context.js';

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
  /** Limit of each captured content attribute, in UTF-8 bytes. Env `AGENT_OTEL_BRIDGE_MAX_CONTENT_BYTES`. Default: 8192. */
  readonly maxContentBytes?: number;
  /** A run with no event for this long is ended as abandoned. Env `AGENT_OTEL_BRIDGE_IDLE_TIMEOUT_MS`. Default: 1 800 000 (30 min). */
  readonly idleTimeoutMillis?: number;
  /** Open runs kept at most; the least recently active is abandoned beyond it. Env `AGENT_OTEL_BRIDGE_MAX_OPEN_RUNS`. Default: 10 000. */
  readonly maxOpenRuns?: number;
  /** Secret patterns masked in every free text that leaves the process. Default: `DEFAULT_SCRUB_PATTERNS`. */
  readonly scrubPatterns?: readonly RegExp[];
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
  /** Runtime-specific attributes (annotations) on one span; more are dropped and counted. Env `AGENT_OTEL_BRIDGE_MAX_ATTRIBUTES_PER_SPAN`. Default: 64. */
  readonly maxAttributesPerSpan?: number;
  /** Longest free-text attribute value in characters (error texts, annotations); longer ones are cut and counted. Env `AGENT_OTEL_BRIDGE_MAX_ATTRIBUTE_LENGTH`. Default: 4096. */
  readonly maxAttributeLength?: number;
  /** Deepest JSON nesting of an input line; deeper lines are rejected (`json_too_deep`). Env `AGENT_OTEL_BRIDGE_MAX_JSON_DEPTH`. Default: 64. */
  readonly maxJsonDepth?: number;
}

export const DEFAULTS: Readonly<{
  captureContent: boolean;
  maxContentBytes: number;
  idleTimeoutMillis: number;
  maxOpenRuns: number;
  maxIterationsPerRun: number;
  maxToolsPerRun: number;
  maxEventsPerSpan: number;
  maxAttributesPerSpan: number;
  maxAttributeLength: number;
  maxJsonDepth: number;
  recentEventKeysPerRun: number;
  dialect: InputDialect;
  finishedRunMemory: number;
  idleSweepIntervalMillis: number;
}> = Object.freeze({
  captureContent: false,
  maxContentBytes: 8192,
  idleTimeoutMillis: 30 * 60 * 1000,
  maxOpenRuns: 10_000,
  maxIterationsPerRun: 1000,
  maxToolsPerRun: 2000,
  maxEventsPerSpan: 128,
  maxAttributesPerSpan: 64,
  maxAttributeLength: 4096,
  maxJsonDepth: 64,
  /** Event keys remembered per run to recognise exact duplicates (bounds memory per run). */
  recentEventKeysPerRun: 1024,
  dialect: 'auto',
  /** Finished run ids remembered to count late events; not a user option. */
  finishedRunMemory: 100_000,
  /** How often idle runs are looked for, at most. */
  idleSweepIntervalMillis: 60_000,
});

export interface ResolvedConfig {
  readonly agentName: string | undefined;
  readonly tracerProvider: TracerProvider | undefined;
  readonly meterProvider: MeterProvider | undefined;
  readonly parentContext: Context | undefined;
  readonly captureContent: boolean;
  readonly maxContentBytes: number;
  readonly idleTimeoutMillis: number;
  readonly maxOpenRuns: number;
  readonly maxIterationsPerRun: number;
  readonly maxToolsPerRun: number;
  readonly maxEventsPerSpan: number;
  readonly maxAttributesPerSpan: number;
  readonly maxAttributeLength: number;
  readonly maxJsonDepth: number;
  readonly recentEventKeysPerRun: number;
  readonly scrubPatterns: readonly RegExp[];
  readonly dialect: InputDialect;
  readonly finishedRunMemory: number;
  readonly idleSweepIntervalMillis: number;
  readonly now: () => number;
  readonly onRunEnd: ((run: RunSummary) => void) | undefined;
}

/** A bad option: thrown at construction, never later. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** The options that are positive integers, with the environment variable each is read from. */
const POSITIVE_INT_ENV = {
  idleTimeoutMillis: 'AGENT_OTEL_BRIDGE_IDLE_TIMEOUT_MS',
  maxOpenRuns: 'AGENT_OTEL_BRIDGE_MAX_OPEN_RUNS',
  maxContentBytes: 'AGENT_OTEL_BRIDGE_MAX_CONTENT_BYTES',
  maxIterationsPerRun: 'AGENT_OTEL_BRIDGE_MAX_ITERATIONS_PER_RUN',
  maxToolsPerRun: 'AGENT_OTEL_BRIDGE_MAX_TOOLS_PER_RUN',
  maxEventsPerSpan: 'AGENT_OTEL_BRIDGE_MAX_EVENTS_PER_SPAN',
  maxAttributesPerSpan: 'AGENT_OTEL_BRIDGE_MAX_ATTRIBUTES_PER_SPAN',
  maxAttributeLength: 'AGENT_OTEL_BRIDGE_MAX_ATTRIBUTE_LENGTH',
  maxJsonDepth: 'AGENT_OTEL_BRIDGE_MAX_JSON_DEPTH',
} as const;
type PositiveIntOption = keyof typeof POSITIVE_INT_ENV;

export function resolveConfig(
  options: AgentOtelSinkOptions = {},
  env: Env = options.env ?? process.env,
): ResolvedConfig {
  // Every positive-integer option: the code option, else its environment variable, else DEFAULTS.
  const positive = (name: PositiveIntOption): number => {
    const value = options[name] ?? envInt(env, POSITIVE_INT_ENV[name]) ?? DEFAULTS[name];
    requirePositiveInt(name, value);
    return value;
  };
  const idleTimeoutMillis = positive('idleTimeoutMillis');
  const maxOpenRuns = positive('maxOpenRuns');
  const maxContentBytes = positive('maxContentBytes');
  const maxIterationsPerRun = positive('maxIterationsPerRun');
  const maxToolsPerRun = positive('maxToolsPerRun');
  const maxEventsPerSpan = positive('maxEventsPerSpan');
  const maxAttributesPerSpan = positive('maxAttributesPerSpan');
  const maxAttributeLength = positive('maxAttributeLength');
  const maxJsonDepth = positive('maxJsonDepth');
  const dialect = options.dialect ?? envDialect(env) ?? DEFAULTS.dialect;
  if (!INPUT_DIALECTS.includes(dialect)) {
    throw new ConfigError(
      `dialect must be one of ${INPUT_DIALECTS.join(', ')}, got ${String(dialect)}`,
    );
  }
  const scrubPatterns = options.scrubPatterns ?? DEFAULT_SCRUB_PATTERNS;
  if (!scrubPatterns.every((p) => p instanceof RegExp))
    throw new ConfigError('scrubPatterns must be regular expressions');
  const agentName = options.agentName ?? nonEmpty(env['AGENT_OTEL_BRIDGE_AGENT_NAME']);
  return {
    agentName,
    tracerProvider: options.tracerProvider,
    meterProvider: options.meterProvider,
    parentContext: options.parentContext,
    captureContent:
      options.captureContent ??
      envBool(env, 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT') ??
      DEFAULTS.captureContent,
    maxContentBytes,
    idleTimeoutMillis,
    maxOpenRuns,
    maxIterationsPerRun,
    maxToolsPerRun,
    maxEventsPerSpan,
    maxAttributesPerSpan,
    maxAttributeLength,
    maxJsonDepth,
    recentEventKeysPerRun: DEFAULTS.recentEventKeysPerRun,
    scrubPatterns,
    dialect,
    finishedRunMemory: Math.max(DEFAULTS.finishedRunMemory, maxOpenRuns),
    idleSweepIntervalMillis: Math.min(
      DEFAULTS.idleSweepIntervalMillis,
      Math.max(1000, Math.floor(idleTimeoutMillis / 4)),
    ),
    now: options.now ?? Date.now,
    onRunEnd: options.onRunEnd,
  };
}

function requirePositiveInt(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value <= 0)
    throw new ConfigError(`${name} must be a positive integer, got ${value}`);
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

/** A bad environment value is warned about once and ignored (the OpenTelemetry convention). */
function envInt(env: Env, name: string): number | undefined {
  const raw = nonEmpty(env[name]);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (Number.isSafeInteger(value) && value > 0) return value;
  diag.warn(`agent-otel-bridge: ignoring ${name}=${raw}: expected a positive integer`);
  return undefined;
}

function envBool(env: Env, name: string): boolean | undefined {
  const raw = nonEmpty(env[name])?.toLowerCase();
  if (raw === undefined) return undefined;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  diag.warn(`agent-otel-bridge: ignoring ${name}=${raw}: expected true or false`);
  return undefined;
}

function envDialect(env: Env): InputDialect | undefined {
  const raw = nonEmpty(env['AGENT_OTEL_BRIDGE_DIALECT']);
  if (raw === undefined) return undefined;
  if ((INPUT_DIALECTS as readonly string[]).includes(raw)) return raw as InputDialect;
  diag.warn(
    `agent-otel-bridge: ignoring AGENT_OTEL_BRIDGE_DIALECT=${raw}: expected one of ${INPUT_DIALECTS.join(', ')}`,
  );
  return undefined;
}
