import type { MeterProvider } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace';
import type { SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace';
import type { Env } from '../sink-options.js';
import { spansByTrace } from './export/export-watcher.js';
import type { ExportListener } from './export/export-watcher.js';
import { SpanQueueWatch } from './export/span-queue-watch.js';

/** Larger than the SDK's 2048 so that replaying a log does not drop spans between flushes. */
export const DEFAULT_BSP_MAX_QUEUE_SIZE = 65_536;
const DEFAULT_BSP_MAX_EXPORT_BATCH_SIZE = 2048;

/** A batch span processor, and how full its queue is (0 to 1; 0 where no listener watches it). */
export interface BatchProcessing {
  readonly processor: SpanProcessor;
  queueLoad(): number;
}

/**
 * The batch span processor as the OTEL_BSP_* variables configure it (SDK 3 reads them only in
 * sdk-node). Spans dropped because its queue is full are counted in the SDK's own
 * `otel.sdk.processor.span.processed{error.type="queue_full"}`, exported with the bridge's metrics,
 * and told to `listener` as failed (a broker source has their runs redelivered).
 */
export function batchProcessor(
  env: Env,
  exporter: SpanExporter,
  selfObsMeterProvider: MeterProvider,
  leastTimeout: number | undefined,
  listener?: ExportListener,
): BatchProcessing {
  const delay = envMillis(env, 'OTEL_BSP_SCHEDULE_DELAY');
  const configured = envMillis(env, 'OTEL_BSP_EXPORT_TIMEOUT');
  const timeout = leastTimeout === undefined ? configured : Math.max(configured ?? 0, leastTimeout);
  const maxQueueSize = envMillis(env, 'OTEL_BSP_MAX_QUEUE_SIZE') ?? DEFAULT_BSP_MAX_QUEUE_SIZE;
  const full = new Error(`the export queue is full (OTEL_BSP_MAX_QUEUE_SIZE ${maxQueueSize})`);
  const watch =
    listener === undefined
      ? undefined
      : // The collector answers: told as a superseded failure, no outage and no longer delay.
        new SpanQueueWatch(maxQueueSize, (spans) =>
          listener.spansFailed(spansByTrace(spans), full, true),
        );
  const processor = new BatchSpanProcessor({
    exporter: watch?.exporter(exporter) ?? exporter,
    maxQueueSize,
    maxExportBatchSize:
      envMillis(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE') ?? DEFAULT_BSP_MAX_EXPORT_BATCH_SIZE,
    ...(delay === undefined ? {} : { scheduledDelayMillis: delay }),
    ...(timeout === undefined ? {} : { exportTimeoutMillis: timeout }),
    selfObsMeterProvider,
  });
  return {
    processor: watch?.processor(processor) ?? processor,
    queueLoad: () => watch?.load ?? 0,
  };
}

/** A positive number of the environment's (milliseconds, sizes); undefined when unset or not one. */
export function envMillis(env: Env, name: string): number | undefined {
  const value = Number(env[name]);
  return Number.isFinite(value) && value > 0 ? value : undefined;
}
