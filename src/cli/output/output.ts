import { connect } from 'node:net';
import type { Env } from '../../sink-options.js';
import {
  isExportConfigured,
  SpanCollector,
  startTelemetry,
  describeTraceDestination,
} from '../../telemetry/index.js';
import type { Telemetry, TelemetryOptions } from '../../telemetry/index.js';
import type { OutputMode } from '../command.js';

/** Where the CLI's telemetry goes: a collector over OTLP, or a trace tree in the terminal. */
export type Output =
  | { readonly mode: 'otlp'; readonly telemetry: Telemetry; readonly destination: string }
  | {
      readonly mode: 'terminal';
      readonly telemetry: Telemetry;
      readonly collector: SpanCollector;
      readonly reason: string;
    };

const DEFAULT_COLLECTOR = { host: 'localhost', port: 4318 };
const MAX_TERMINAL_TRACES = 20;

export async function setUpOutput(
  mode: OutputMode,
  env: Env,
  delivery: Pick<
    TelemetryOptions,
    'exportListener' | 'holdThroughOutageMillis' | 'destinationListener'
  > = {},
): Promise<Output> {
  if (
    mode === 'otlp' ||
    (mode === 'auto' && isExportConfigured(env)) ||
    (mode === 'auto' && (await isListening(DEFAULT_COLLECTOR.host, DEFAULT_COLLECTOR.port)))
  ) {
    return {
      mode: 'otlp',
      telemetry: startTelemetry({ env, ...delivery }),
      destination: describeTraceDestination(env),
    };
  }
  const collector = new SpanCollector(MAX_TERMINAL_TRACES);
  return {
    mode: 'terminal',
    telemetry: startTelemetry({ env, spanExporter: collector, disableMetrics: true }),
    collector,
    reason:
      mode === 'terminal'
        ? 'terminal output was asked for'
        : `no collector at http://${DEFAULT_COLLECTOR.host}:${DEFAULT_COLLECTOR.port}`,
  };
}

function isListening(host: string, port: number, timeoutMillis = 300): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (up: boolean) => {
      socket.destroy();
      resolve(up);
    };
    socket.setTimeout(timeoutMillis, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
