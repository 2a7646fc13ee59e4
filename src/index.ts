// Public API: an explicit list.
export { createAgentOtelSink } from './sink/create-agent-otel-sink.js';
export type {
  AgentOtelSink,
  EventOutcome,
  EventStream,
  HandleResult,
  SinkStats,
} from './sink/agent-otel-sink.js';
export { ConfigError, DEFAULTS, resolveConfig } from './config.js';
export type { ResolvedConfig } from './config.js';
export type { AgentOtelSinkOptions, Env } from './sink-options.js';
export type {
  AgentEvent,
  AgentEventType,
  AssistantMessageCommitted,
  CompactionCircuitOpened,
  ContextBuilt,
  DoomLoopDetected,
  ModelStarted,
  RunCancelled,
  RunCompleted,
  RunFailed,
  RunStarted,
  TerminalEvent,
  TextDelta,
  TokenUsage,
  ToolCallCompleted,
  ToolCallDelta,
  ToolCallStarted,
  ToolExecutionFinished,
  ToolExecutionStarted,
  ToolMessageCommitted,
  ToolResult,
  UsageRecorded,
} from './events/agent-event.js';
export { formatHrTime, hrTimeFromMillis, parseRfc3339 } from './events/hr-time.js';
export { parseLine } from './dialects/detect.js';
export type { LineResult } from './dialects/detect.js';
export { INPUT_DIALECTS } from './events/dialect-name.js';
export type { DialectName, InputDialect } from './events/dialect-name.js';
export type { ParseResult } from './dialects/shared/parse-result.js';
export type { Annotation, AnnotationValue } from './events/agent-event.js';
export { BEHEST_VARIANTS } from './dialects/behest/behest.js';
export { AgentRunIdGenerator } from './mapping/id-generator.js';
export { toSpanId, toTraceId } from './mapping/ids.js';
export { createScrubber, DEFAULT_SCRUB_PATTERNS, REDACTED } from './mapping/privacy/scrub.js';
export type { Scrubber, ScrubberOptions } from './mapping/privacy/scrub.js';
export type { RunSummary } from './mapping/tracker-context.js';
export type { ModelPriceEntry, PriceList } from './pricing/price-file.js';
export type { PricesOption } from './pricing/resolve-prices.js';
