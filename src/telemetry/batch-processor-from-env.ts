import type { MeterProvider } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace';
import type { SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace';
import type { Env } from '../sink-options.js';
import type { ExportListener } from './export/export-watcher.js';
import { SpanQueueWatch } from './export/span-queue-watch.js';

/** Larger than the SDK's 2048 so that replaying a log does not drop spans between flushes. */
export const DEFAULT_BSP_MAX_QUEUE_SIZE = 65_536;
const DEFAULT_BSP_MAX_EXPORT_BATCH_SIZE = 2048;

/**
 * A batch span processor, and how full its queue is (1: full; past 1 while spans wait for room; 0
 * where no listener watches it).
 */
export interface BatchProcessing {
  readonly processor: SpanProcessor;
  queueLoad(): number;
}

/**
 * The batch span processor as the OTEL_BSP_* variables configure it (SDK 3 reads them only in
 * sdk-node). With a `listener` (the destination a command's input waits for, which holds its
 * input back while the queue is over half full), spans that end while the queue is full wait for
 * room instead of being dropped (`SpanQueueWatch`), and `listener` is told each time they begin to
 * wait. Without one (an extra destination, which nothing waits for), the processor drops them and
 * counts them in the SDK's own `otel.sdk.processor.span.processed{error.type="queue_full"}`.
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
  const watch =
    listener === undefined
      ? undefined
      : new SpanQueueWatch(maxQueueSize, () => listener.spansWaiting?.(maxQueueSize));
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
