import type { IMetricReader } from '@opentelemetry/sdk-metrics';
import { createBridgeSink } from '../sink/bridge-sink.js';
import type { BridgeSink } from '../sink/bridge-sink.js';
import { DeliveryTally } from '../telemetry/export/delivery-tally.js';
import { resolveExporterName } from '../telemetry/exporter-choice.js';
import { startTelemetry } from '../telemetry/index.js';
import type { Telemetry } from '../telemetry/index.js';
import type { CommonOptions } from './command.js';
import { exportHoldMillis } from './delivery.js';

/** A sink with an export pipeline of its own, and the tally of what reached the collector. */
export interface ExportingSink {
  readonly sink: BridgeSink;
  readonly telemetry: Telemetry;
  readonly delivery: DeliveryTally;
}

/**
 * The sink of `serve` and of each worker thread: providers from the environment, held through a
 * collector outage for `AGENT_OTEL_BRIDGE_EXPORT_HOLD_MS`, spans owed only when traces go to OTLP.
 */
export function startExportingSink(
  env: Readonly<Record<string, string | undefined>>,
  options: CommonOptions,
  extra: {
    readonly metricReaders?: readonly IMetricReader[];
    /** A log read at its own pace: windows also counted in events (see the sink's options). */
    readonly countWindowsInEvents?: boolean;
  } = {},
): ExportingSink {
  const delivery = new DeliveryTally(resolveExporterName(env, 'OTEL_TRACES_EXPORTER') === 'otlp');
  const telemetry = startTelemetry({
    env,
    metricReaders: extra.metricReaders ?? [],
    exportListener: delivery,
    holdThroughOutageMillis: exportHoldMillis(env),
  });
  const sink = createBridgeSink({
    onRunEnd: (run) => delivery.runEnded(run),
    tracerProvider: telemetry.tracerProvider,
    meterProvider: telemetry.meterProvider,
    env,
    ...(extra.countWindowsInEvents === true ? { countWindowsInEvents: true } : {}),
    ...(options.agentName === undefined ? {} : { agentName: options.agentName }),
    ...(options.captureContent === undefined ? {} : { captureContent: options.captureContent }),
  });
  return { sink, telemetry, delivery };
}
