// `agent-otel-bridge/telemetry`: standalone SDK setup for users without their own.
export { startTelemetry } from './start-telemetry.js';
export type { Telemetry, TelemetryOptions } from './start-telemetry.js';
export { SpanCollector } from './span-collector.js';
export type { ExportListener } from './export/export-watcher.js';
export type { CollectedSpan } from './span-collector.js';
export { describeTraceDestination, isExportConfigured } from './exporter-choice.js';
export { checkDestinations } from './destinations.js';
export type { Destination } from './destinations.js';
export { RunSamplingProcessor } from './sampling/run-sampling-processor.js';
export { decideRun, ratioKeeps } from './sampling/run-sampling-policy.js';
export type {
  RunSamplingPolicy,
  SamplingDecision,
  SamplingReason,
} from './sampling/run-sampling-policy.js';
