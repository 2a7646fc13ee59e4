import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { createAgentOtelSink } from '../sink.js';
import { startHttpSource } from '../sources/http-source.js';
import type { HttpSourceOptions } from '../sources/http-source.js';
import { describeTraceDestination, startTelemetry } from '../telemetry/index.js';
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
  const telemetry = startTelemetry({
    env: io.env,
    metricReaders: prometheus === undefined ? [] : [prometheus],
  });
  const sink = createAgentOtelSink({
    tracerProvider: telemetry.tracerProvider,
    meterProvider: telemetry.meterProvider,
    env: io.env,
    ...(common.agentName === undefined ? {} : { agentName: common.agentName }),
    ...(common.captureContent === undefined ? {} : { captureContent: common.captureContent }),
  });
  const http = await startHttpSource(sink, { ...options, dialect: common.dialect });
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
  await telemetry.shutdown();
  if (!common.quiet) {
    const stats = sink.stats();
    const events = Object.values(stats.events).reduce((a, b) => a + b, 0);
    const seconds = (performance.now() - started) / 1000;
    io.stdout.write(
      `${renderSummary({ command: 'serve', lines: events, seconds, stats, destination: describeTraceDestination(io.env) }).join('\n')}\n`,
    );
  }
  return 0;
}
