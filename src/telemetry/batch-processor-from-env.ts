import type { MeterProvider } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace';
import type { SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace';
import type { Env } from '../sink-options.js';

/** Larger than the SDK's 2048 so that replaying a log does not drop spans between flushes. */
export const DEFAULT_BSP_MAX_QUEUE_SIZE = 65_536;
const DEFAULT_BSP_MAX_EXPORT_BATCH_SIZE = 2048;

/**
 * The batch span processor as the OTEL_BSP_* variables configure it (SDK 3 reads them only in
 * sdk-node). Spans dropped because its queue is full are counted in the SDK's own
 * `otel.sdk.processor.span.processed{error.type="queue_full"}`, exported with the bridge's metrics.
 */
export function batchProcessor(
  env: Env,
  exporter: SpanExporter,
  selfObsMeterProvider: MeterProvider,
  leastTimeout: number | undefined,
): SpanProcessor {
  const delay = envMillis(env, 'OTEL_BSP_SCHEDULE_DELAY');
  const configured = envMillis(env, 'OTEL_BSP_EXPORT_TIMEOUT');
  const timeout = leastTimeout === undefined ? configured : Math.max(configured ?? 0, leastTimeout);
  return new BatchSpanProcessor({
    exporter,
    maxQueueSize: envMillis(env, 'OTEL_BSP_MAX_QUEUE_SIZE') ?? DEFAULT_BSP_MAX_QUEUE_SIZE,
    maxExportBatchSize:
      envMillis(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE') ?? DEFAULT_BSP_MAX_EXPORT_BATCH_SIZE,
    ...(delay === undefined ? {} : { scheduledDelayMillis: delay }),
    ...(timeout === undefined ? {} : { exportTimeoutMillis: timeout }),
    selfObsMeterProvider,
  });
}

/** A positive number of the environment's (milliseconds, sizes); undefined when unset or not one. */
export function envMillis(env: Env, name: string): number | undefined {
  const value = Number(env[name]);
  return Number.isFinite(value) && value > 0 ? value : undefined;
}
