import { diag } from '@opentelemetry/api';
import type { Context, MeterProvider, TracerProvider } from '@opentelemetry/api';
import { INPUT_DIALECTS } from './events/dialect-name.js';
import type { InputDialect } from './events/dialect-name.js';
import { DEFAULT_MAX_JSON_DEPTH } from './dialects/shared/json-depth.js';
import { DEFAULT_SCRUB_PATTERNS } from './mapping/privacy/scrub.js';
import type { RunSummary } from './mapping/tracker-context.js';
import { PriceFileError } from './pricing/price-file.js';
import type { PriceTable } from './pricing/price-table.js';
import { resolvePriceTable } from './pricing/resolve-prices.js';
import type { PricesOption } from './pricing/resolve-prices.js';

import type { AgentOtelSinkOptions, Env } from './sink-options.js';

export const DEFAULTS: Readonly<{
  captureContent: boolean;
  scrubPersonalData: boolean;
  exportErrorText: boolean;
  maxContentBytes: number;
  idleTimeoutMillis: number;
  maxOpenRuns: number;
  maxIterationsPerRun: number;
  maxToolsPerRun: number;
  maxEventsPerSpan: number;
  maxAttributesPerSpan: number;
  maxAttributeLength: number;
  maxJsonDepth: number;
  maxMetricLabelValues: number;
  reorderWindowMillis: number;
  reorderWindowEvents: number;
  lateGraceMillis: number;
  maxHeldEvents: number;
  lateGraceEvents: number;
  recentEventKeysPerRun: number;
  dialect: InputDialect;
  finishedRunMemory: number;
  idleSweepIntervalMillis: number;
}> = Object.freeze({
  captureContent: false,
  scrubPersonalData: true,
  exportErrorText: true,
  maxContentBytes: 8192,
  idleTimeoutMillis: 30 * 60 * 1000,
  maxOpenRuns: 10_000,
  maxIterationsPerRun: 1000,
  maxToolsPerRun: 2000,
  maxEventsPerSpan: 128,
  maxAttributesPerSpan: 64,
  maxAttributeLength: 4096,
  maxJsonDepth: DEFAULT_MAX_JSON_DEPTH,
  maxMetricLabelValues: 100,
  reorderWindowMillis: 1000,
  reorderWindowEvents: 256,
  lateGraceMillis: 5000,
  maxHeldEvents: 50_000,
  lateGraceEvents: 1000,
  /** Same-time events remembered per run to recognise exact duplicates (bounds memory per run). */
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
  readonly genAiConventions: 'v1.41' | 'latest';
  /** Prices model calls; undefined: costs are off. */
  readonly prices: PriceTable | undefined;
  readonly maxContentBytes: number;
  readonly idleTimeoutMillis: number;
  readonly maxOpenRuns: number;
  readonly maxIterationsPerRun: number;
  readonly maxToolsPerRun: number;
  readonly maxEventsPerSpan: number;
  readonly maxAttributesPerSpan: number;
  readonly maxAttributeLength: number;
  readonly maxJsonDepth: number;
  readonly maxMetricLabelValues: number;
  readonly reorderWindowMillis: number;
  readonly reorderWindowEvents: number;
  readonly lateGraceMillis: number;
  readonly maxHeldEvents: number;
  readonly countWindowsInEvents: boolean;
  readonly lateGraceEvents: number;
  readonly recentEventKeysPerRun: number;
  readonly scrubPatterns: readonly RegExp[];
  readonly scrubPersonalData: boolean;
  readonly exportErrorText: boolean;
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

/**
 * Runtime-specific attributes per span at most: the SDK's default limit of 128 attributes per span
 * minus room for the contract's own (at most about 20 per span, some set only at the span's end),
 * so that `gen_ai.usage.*`, the outcome or the error type are never the attributes dropped.
 */
export const MAX_ANNOTATION_ATTRIBUTES = 96;

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
  maxMetricLabelValues: 'AGENT_OTEL_BRIDGE_MAX_METRIC_LABEL_VALUES',
  maxHeldEvents: 'AGENT_OTEL_BRIDGE_MAX_HELD_EVENTS',
  lateGraceEvents: 'AGENT_OTEL_BRIDGE_LATE_GRACE_EVENTS',
} as const;
type PositiveIntOption = keyof typeof POSITIVE_INT_ENV;
/** The options that may be 0 (no waiting): the reorder window and the grace period. */
const ZERO_OR_MORE_ENV = {
  reorderWindowMillis: 'AGENT_OTEL_BRIDGE_REORDER_WINDOW_MS',
  reorderWindowEvents: 'AGENT_OTEL_BRIDGE_REORDER_WINDOW_EVENTS',
  lateGraceMillis: 'AGENT_OTEL_BRIDGE_LATE_GRACE_MS',
} as const;
type ZeroOrMoreOption = keyof typeof ZERO_OR_MORE_ENV;

export function resolveConfig(
  options: AgentOtelSinkOptions = {},
  env: Env = options.env ?? process.env,
): ResolvedConfig {
  // Every positive-integer option: the code option, else its environment variable, else DEFAULTS.
  const positive = (name: PositiveIntOption): number => {
    const value = options[name] ?? envInt(env, POSITIVE_INT_ENV[name], 1) ?? DEFAULTS[name];
    requireInt(name, value, 1);
    return value;
  };
  const zeroOrMore = (name: ZeroOrMoreOption): number => {
    const value = options[name] ?? envInt(env, ZERO_OR_MORE_ENV[name], 0) ?? DEFAULTS[name];
    requireInt(name, value, 0);
    return value;
  };
  const idleTimeoutMillis = positive('idleTimeoutMillis');
  const maxOpenRuns = positive('maxOpenRuns');
  const maxContentBytes = positive('maxContentBytes');
  const maxIterationsPerRun = positive('maxIterationsPerRun');
  const maxToolsPerRun = positive('maxToolsPerRun');
  const maxEventsPerSpan = positive('maxEventsPerSpan');
  const maxAttributesPerSpan = positive('maxAttributesPerSpan');
  if (maxAttributesPerSpan > MAX_ANNOTATION_ATTRIBUTES)
    throw new ConfigError(
      `maxAttributesPerSpan must be at most ${MAX_ANNOTATION_ATTRIBUTES}, got ${maxAttributesPerSpan}: the SDK keeps 128 attributes per span, and the contract's own (tokens, outcome, …) must always fit beside the runtime's`,
    );
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
    genAiConventions: genAiConventions(options.genAiConventions, env),
    prices: priceTable(options.prices ?? nonEmpty(env['AGENT_OTEL_BRIDGE_PRICES'])),
    maxContentBytes,
    idleTimeoutMillis,
    maxOpenRuns,
    maxIterationsPerRun,
    maxToolsPerRun,
    maxEventsPerSpan,
    maxAttributesPerSpan,
    maxAttributeLength,
    maxJsonDepth,
    maxMetricLabelValues: positive('maxMetricLabelValues'),
    reorderWindowMillis: zeroOrMore('reorderWindowMillis'),
    reorderWindowEvents: zeroOrMore('reorderWindowEvents'),
    lateGraceMillis: zeroOrMore('lateGraceMillis'),
    maxHeldEvents: positive('maxHeldEvents'),
    countWindowsInEvents: options.countWindowsInEvents ?? false,
    lateGraceEvents: positive('lateGraceEvents'),
    recentEventKeysPerRun: DEFAULTS.recentEventKeysPerRun,
    scrubPatterns,
    scrubPersonalData:
      options.scrubPersonalData ??
      envBool(env, 'AGENT_OTEL_BRIDGE_SCRUB_PERSONAL_DATA') ??
      DEFAULTS.scrubPersonalData,
    exportErrorText:
      options.exportErrorText ??
      envBool(env, 'AGENT_OTEL_BRIDGE_EXPORT_ERROR_TEXT') ??
      DEFAULTS.exportErrorText,
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

function genAiConventions(
  option: AgentOtelSinkOptions['genAiConventions'],
  env: Env,
): 'v1.41' | 'latest' {
  if (option !== undefined) {
    if (option !== 'v1.41' && option !== 'latest')
      throw new ConfigError(`genAiConventions must be 'v1.41' or 'latest', got ${String(option)}`);
    return option;
  }
  const optIn = (env['OTEL_SEMCONV_STABILITY_OPT_IN'] ?? '').split(',').map((s) => s.trim());
  return optIn.includes('gen_ai_latest_experimental') ? 'latest' : 'v1.41';
}

function priceTable(option: PricesOption | undefined): PriceTable | undefined {
  try {
    return resolvePriceTable(option);
  } catch (error) {
    if (error instanceof PriceFileError) throw new ConfigError(error.message);
    throw error;
  }
}

function requireInt(name: string, value: number, min: 0 | 1): void {
  if (!Number.isSafeInteger(value) || value < min)
    throw new ConfigError(
      `${name} must be ${min === 1 ? 'a positive integer' : 'an integer of 0 or more'}, got ${value}`,
    );
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

/** A bad environment value is warned about once and ignored (the OpenTelemetry convention). */
export function envInt(env: Env, name: string, min: 0 | 1): number | undefined {
  const raw = nonEmpty(env[name]);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (Number.isSafeInteger(value) && value >= min) return value;
  diag.warn(
    `agent-otel-bridge: ignoring ${name}=${raw}: expected ${min === 1 ? 'a positive integer' : 'an integer of 0 or more'}`,
  );
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
