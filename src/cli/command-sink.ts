// The one place where a command wires a sink: its providers, the common flags and what it hears
// at each run's end. Every command (ingest, its worker threads, serve, the brokers, crabtalk,
// validate) starts its sink here.
import type { InputDialect } from '../events/dialect-name.js';
import type { RunSummary } from '../mapping/tracker-context.js';
import type { AgentOtelSinkOptions, Env } from '../sink-options.js';
import { createBridgeSink } from '../sink/bridge-sink.js';
import type { BridgeSink, BridgeSinkHooks } from '../sink/bridge-sink-api.js';
import { DeliveryTally } from '../telemetry/export/delivery-tally.js';
import { resolveExporterName } from '../telemetry/exporter-choice.js';
import { startTelemetry } from '../telemetry/index.js';
import type { Destination, Telemetry, TelemetryOptions } from '../telemetry/index.js';
import type { CommonOptions } from './command.js';
import { exportHoldMillis } from './delivery.js';

/** How a command's sink is attached. */
export interface SinkWiring {
  /** Where spans and metrics go; none: the global API's (no-op unless the host set them). */
  readonly telemetry?: Pick<Telemetry, 'tracerProvider' | 'meterProvider'>;
  readonly onRunEnd?: (run: RunSummary) => void;
  readonly hooks?: BridgeSinkHooks;
  /** The dialect of the default stream (`handleJson` without a stream). */
  readonly dialect?: InputDialect;
  /** A log read at its own pace: windows also counted in events (see the sink's options). */
  readonly countWindowsInEvents?: boolean;
}

/** The sink options the command line sets: the environment, `--agent-name`, `--capture-content`, `--prices`. */
export function commandSinkOptions(
  env: Env,
  common: Partial<Pick<CommonOptions, 'agentName' | 'captureContent' | 'prices'>>,
): AgentOtelSinkOptions {
  return {
    env,
    ...(common.agentName === undefined ? {} : { agentName: common.agentName }),
    ...(common.captureContent === undefined ? {} : { captureContent: common.captureContent }),
    ...(common.prices === undefined ? {} : { prices: common.prices }),
  };
}

/** The bridge sink of a command. Throws `ConfigError` on a bad environment or flag only. */
export function createCommandSink(
  env: Env,
  common: Partial<Pick<CommonOptions, 'agentName' | 'captureContent' | 'prices'>>,
  wiring: SinkWiring = {},
): BridgeSink {
  const { telemetry, onRunEnd, hooks, dialect, countWindowsInEvents } = wiring;
  return createBridgeSink(
    {
      ...commandSinkOptions(env, common),
      ...(telemetry === undefined
        ? {}
        : { tracerProvider: telemetry.tracerProvider, meterProvider: telemetry.meterProvider }),
      ...(onRunEnd === undefined ? {} : { onRunEnd }),
      ...(dialect === undefined ? {} : { dialect }),
      ...(countWindowsInEvents === true ? { countWindowsInEvents: true } : {}),
    },
    hooks,
  );
}

/**
 * Each extra destination's own tally (docs/destinations.md), told to `say` its trouble, for
 * `startTelemetry({ destinationListener })`.
 */
export function destinationTallies(
  delivery: DeliveryTally,
  say?: (tally: DeliveryTally, destination: Destination) => void,
): (destination: Destination) => DeliveryTally {
  return (destination) => {
    const tally = delivery.destination(destination.name, destination.traces);
    say?.(tally, destination);
    return tally;
  };
}

/** The tally of what reached the collector: spans are owed only when traces go to OTLP. */
export function createDeliveryTally(env: Env): DeliveryTally {
  return new DeliveryTally(resolveExporterName(env, 'OTEL_TRACES_EXPORTER') === 'otlp');
}

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
  env: Env,
  options: CommonOptions,
  extra: Pick<TelemetryOptions, 'metricReaders'> & Pick<SinkWiring, 'countWindowsInEvents'> = {},
): ExportingSink {
  const delivery = createDeliveryTally(env);
  const telemetry = startTelemetry({
    env,
    metricReaders: extra.metricReaders ?? [],
    exportListener: delivery,
    destinationListener: destinationTallies(delivery),
    holdThroughOutageMillis: exportHoldMillis(env),
  });
  const sink = createCommandSink(env, options, {
    telemetry,
    onRunEnd: (run) => delivery.runEnded(run),
    ...(extra.countWindowsInEvents === true ? { countWindowsInEvents: true } : {}),
  });
  return { sink, telemetry, delivery };
}
