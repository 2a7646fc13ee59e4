import { startHttpSource } from '../../sources/http-source.js';
import { envInt } from '../../config.js';
import type { Refusal } from '../../sources/http-source-options.js';
import { describeTraceDestination } from '../../telemetry/index.js';
import { createPrometheusReader } from '../../telemetry/prometheus-reader.js';
import { DEFAULT_BSP_MAX_QUEUE_SIZE } from '../../telemetry/batch-processor-from-env.js';
import { EXIT_UNDELIVERED } from '../delivery.js';
import { startLocalBackend } from './serve-backend.js';
import type { CommonOptions, Io, ServeOptions } from '../command.js';
import { renderSummary } from '../output/summary.js';
import { armGrace } from '../grace.js';
import { probeCollector } from '../../telemetry/collector-probe.js';

/** `agent-otel-bridge serve`: the HTTP source until SIGINT/SIGTERM (or a worker's death). */
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
      : // The scrape endpoint takes the same bearer token as the events endpoint.
        createPrometheusReader(options.host, options.prometheusPort, options.token);
  let failure: Error | undefined;
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  // Listened for before anything is said: a signal sent on the `listening on` line must not find
  // Node's default (which kills the process) still in place.
  process.once('SIGINT', () => stop());
  process.once('SIGTERM', () => stop());
  const backend =
    options.workers > 1
      ? (await import('../workers/serve-main.js')).startWorkerBackend(
          io.env,
          common,
          options.workers,
          (error) => {
            failure = error;
            io.stderr.write(`agent-otel-bridge: ${error.message}; stopping\n`);
            stop();
          },
        )
      : startLocalBackend(io.env, common, prometheus === undefined ? [] : [prometheus]);
  // Half the span queue: requests are refused well before the queue would drop spans.
  const maxBacklog = Math.floor(
    (envInt(io.env, 'OTEL_BSP_MAX_QUEUE_SIZE', 1) ?? DEFAULT_BSP_MAX_QUEUE_SIZE) / 2,
  );
  const admission = (): Refusal | undefined => {
    const status = backend.status();
    if (status.inOutage)
      return { reason: 'the collector is not taking spans (retrying)', retryAfterSeconds: 5 };
    if (status.backlog > maxBacklog)
      return { reason: `${status.backlog} spans are waiting for export`, retryAfterSeconds: 1 };
    return undefined;
  };
  const maxInFlightBytes = envInt(io.env, 'AGENT_OTEL_BRIDGE_MAX_IN_FLIGHT_BYTES', 1);
  const http = await startHttpSource(backend.intake, {
    ...options,
    dialect: common.dialect,
    admission,
    ...(maxInFlightBytes === undefined ? {} : { maxInFlightBytes }),
  });
  if (options.tls !== undefined) say('TLS on');
  say(
    `listening on ${http.url}/v1/events${options.token === undefined ? '' : ' (bearer token required)'}; ${describeTraceDestination(io.env)}`,
  );
  void probeCollector(io.env).then((problem) => {
    if (problem !== undefined)
      say(
        `agent-otel-bridge: ${problem}; requests are answered 503 while exports fail, spans taken are held for it`,
      );
  });
  if (prometheus !== undefined)
    say(
      `Prometheus metrics on http://${options.host}:${options.prometheusPort}/metrics${options.token === undefined ? '' : ' (bearer token required)'}`,
    );
  const started = performance.now();
  await stopped;
  const disarm = armGrace(
    options.graceMillis,
    (line) => io.stderr.write(line),
    'the spans still waiting for export not delivered',
  );
  await http.close();
  const { stats, delivered } = await backend.close();
  disarm();
  const undelivered = delivered.spans - delivered.delivered;
  if (undelivered > 0 || delivered.metricFailures > 0)
    io.stderr.write(
      `agent-otel-bridge: not delivered: ${undelivered} of ${delivered.spans} spans${delivered.metricFailures > 0 ? `, ${delivered.metricFailures} metric export(s)` : ''}\n`,
    );
  if (!common.quiet) {
    const events = Object.values(stats.events).reduce((a, b) => a + b, 0);
    const seconds = (performance.now() - started) / 1000;
    io.stdout.write(
      `${[...renderSummary({ command: 'serve', lines: events, seconds, stats, destination: describeTraceDestination(io.env) }), `  delivered ${delivered.delivered} of ${delivered.spans} spans`].join('\n')}\n`,
    );
  }
  if (failure !== undefined) return 1;
  return undelivered > 0 || delivered.metricFailures > 0 ? EXIT_UNDELIVERED : 0;
}
