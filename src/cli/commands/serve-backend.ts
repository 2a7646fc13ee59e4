import type { SinkStats } from '../../sink/agent-otel-sink.js';
import { sinkIntake } from '../../sources/event-intake.js';
import type { EventIntake } from '../../sources/event-intake.js';
import type { CommonOptions } from '../command.js';
import { startExportingSink } from '../command-sink.js';
import type { TelemetryOptions } from '../../telemetry/index.js';
import { DEFAULT_BSP_MAX_QUEUE_SIZE, envMillis } from '../../telemetry/batch-processor-from-env.js';
import type { ExportStatus } from '../workers/worker-protocol.js';
import type { WorkerDelivery } from '../workers/worker-results.js';

/** What maps and exports `serve`'s requests: a sink on the main thread, or worker threads. */
export interface ServeBackend {
  readonly intake: EventIntake;
  /** The collector's state now, to refuse requests that could not be kept. */
  status(): ExportStatus;
  /** Ends open runs as abandoned, exports what is left and says what was delivered. */
  close(): Promise<{ readonly stats: SinkStats; readonly delivered: WorkerDelivery }>;
}

/** `serve` on one thread: the sink and the export pipeline beside the HTTP server. */
export function startLocalBackend(
  env: Readonly<Record<string, string | undefined>>,
  options: CommonOptions,
  metricReaders: NonNullable<TelemetryOptions['metricReaders']>,
): ServeBackend {
  const { sink, telemetry, delivery } = startExportingSink(env, options, { metricReaders });
  const queueSize = envMillis(env, 'OTEL_BSP_MAX_QUEUE_SIZE') ?? DEFAULT_BSP_MAX_QUEUE_SIZE;
  return {
    intake: sinkIntake(sink),
    // Spans of runs still open count too once they wait for room in the queue.
    status: () => ({
      inOutage: delivery.inOutage,
      backlog: Math.max(delivery.backlog, Math.round(telemetry.spanQueueLoad() * queueSize)),
    }),
    async close() {
      await sink.shutdown();
      await telemetry.shutdown().catch(() => undefined);
      return { stats: sink.stats(), delivered: delivery.result() };
    },
  };
}
