import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { createBridgeSink } from '../sink.js';
import { startHttpSource } from '../sources/http-source.js';
import type { HttpSourceOptions } from '../sources/http-source.js';
import { envInt } from '../config.js';
import type { Refusal } from '../sources/http-source.js';
import { DeliveryTally } from '../telemetry/delivery-tally.js';
import { resolveExporterName } from '../telemetry/exporter-choice.js';
import { describeTraceDestination, startTelemetry } from '../telemetry/index.js';
import { DEFAULT_BSP_MAX_QUEUE_SIZE } from '../telemetry/start-telemetry.js';
import { DEFAULT_EXPORT_HOLD_MILLIS, EXIT_UNDELIVERED } from './delivery.js';
import type { CommonOptions } from './args.js';
import type { Io } from './pipeline.js';
import { renderSummary } from './summary.js';

export interface ServeOptions extends Omit<HttpSourceOptions, 'dialect'> {
  /** Serve the bridge's metrics for Prometheus to scrape on this port. */
  readonly prometheusPort: number | undefined;
}

/** `agent-otel-bridge serve`: the HTTP source until SIGINT/SIGTERM. */
export async function runServe(
  io: Io,
  common: CommonOptions,
  options: ServeOptions,
): Promise<number> {
  const say = (line: string) => {
    if (!common.quiet) io.stderr.write(`${line}\n`);
  };
  const prometheus =
    options.prometheusPort === undefined
      ? undefined
      : new PrometheusExporter({ host: options.host, port: options.prometheusPort });
  const delivery = new DeliveryTally(
    resolveExporterName(io.env, 'OTEL_TRACES_EXPORTER') === 'otlp',
  );
  const holdMillis =
    envInt(io.env, 'AGENT_OTEL_BRIDGE_EXPORT_HOLD_MS', 1) ?? DEFAULT_EXPORT_HOLD_MILLIS;
  const telemetry = startTelemetry({
    env: io.env,
    metricReaders: prometheus === undefined ? [] : [prometheus],
    exportListener: delivery,
    holdThroughOutageMillis: holdMillis,
  });
  // Half the span queue: requests are refused well before the queue would drop spans.
  const maxBacklog = Math.floor(
    (envInt(io.env, 'OTEL_BSP_MAX_QUEUE_SIZE', 1) ?? DEFAULT_BSP_MAX_QUEUE_SIZE) / 2,
  );
  const admission = (): Refusal | undefined => {
    if (delivery.inOutage)
      return { reason: 'the collector is not taking spans (retrying)', retryAfterSeconds: 5 };
    if (delivery.backlog > maxBacklog)
      return { reason: `${delivery.backlog} spans are waiting for export`, retryAfterSeconds: 1 };
    return undefined;
  };
  const sink = createBridgeSink({
    onRunEnd: (run) => delivery.runEnded(run),
    tracerProvider: telemetry.tracerProvider,
    meterProvider: telemetry.meterProvider,
    env: io.env,
    ...(common.agentName === undefined ? {} : { agentName: common.agentName }),
    ...(common.captureContent === undefined ? {} : { captureContent: common.captureContent }),
  });
  const maxInFlightBytes = envInt(io.env, 'AGENT_OTEL_BRIDGE_MAX_IN_FLIGHT_BYTES', 1);
  const http = await startHttpSource(sink, {
    ...options,
    dialect: common.dialect,
    admission,
    ...(maxInFlightBytes === undefined ? {} : { maxInFlightBytes }),
  });
  if (options.tls !== undefined) say('TLS on');
  say(
    `listening on ${http.url}/v1/events${options.token === undefined ? '' : ' (bearer token required)'}; ${describeTraceDestination(io.env)}`,
  );
  if (prometheus !== undefined)
    say(`Prometheus metrics on http://${options.host}:${options.prometheusPort}/metrics`);
  const started = performance.now();
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await http.close();
  await sink.shutdown();
  await telemetry.shutdown().catch(() => undefined);
  const delivered = delivery.result();
  const undelivered = delivered.spans - delivered.delivered;
  if (undelivered > 0 || delivered.metricFailures > 0)
    io.stderr.write(
      `agent-otel-bridge: not delivered: ${undelivered} of ${delivered.spans} spans${delivered.metricFailures > 0 ? `, ${delivered.metricFailures} metric export(s)` : ''}\n`,
    );
  if (!common.quiet) {
    const stats = sink.stats();
    const events = Object.values(stats.events).reduce((a, b) => a + b, 0);
    const seconds = (performance.now() - started) / 1000;
    io.stdout.write(
      `${[...renderSummary({ command: 'serve', lines: events, seconds, stats, destination: describeTraceDestination(io.env) }), `  delivered ${delivered.delivered} of ${delivered.spans} spans`].join('\n')}\n`,
    );
  }
  return undelivered > 0 || delivered.metricFailures > 0 ? EXIT_UNDELIVERED : 0;
}
