import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { OTLPMetricExporter as OTLPMetricExporterJson } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as OTLPMetricExporterProto } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPTraceExporter as OTLPTraceExporterJson } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OTLPTraceExporterProto } from '@opentelemetry/exporter-trace-otlp-proto';
import {
  ConsoleMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import type { IMetricReader, PushMetricExporter } from '@opentelemetry/sdk-metrics';
import {
  BatchSpanProcessor,
  ConsoleSpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import type { SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace';
import { randomUUID } from 'node:crypto';
import type { Env } from '../config.js';
import { AgentRunIdGenerator } from '../mapping/id-generator.js';
import { PACKAGE_NAME, PACKAGE_VERSION } from '../version.js';
import { resolveExporterName, resolveProtocol } from './exporter-choice.js';
import { WatchedMetricExporter, WatchedSpanExporter } from './export-watcher.js';
import type { ExportListener } from './export-watcher.js';

export interface TelemetryOptions {
  /** Environment to read (`OTEL_*`). Default: `process.env`. */
  readonly env?: Env;
  /** Replace the traces exporter chosen from the environment (e.g. a terminal view). */
  readonly spanExporter?: SpanExporter;
  /** Turn metrics off regardless of the environment. */
  readonly disableMetrics?: boolean;
  /** Extra metric readers (e.g. a Prometheus scrape endpoint). */
  readonly metricReaders?: readonly IMetricReader[];
  /** Told about every export's outcome (sources acknowledge what is durable). */
  readonly exportListener?: ExportListener;
  /** Metric export interval when `OTEL_METRIC_EXPORT_INTERVAL` is not set. Default 60 000 ms. */
  readonly metricExportIntervalMillis?: number;
}

/** Providers set up from the standard OpenTelemetry environment, with the bridge's id generator. */
export interface Telemetry {
  readonly tracerProvider: TracerProvider;
  readonly meterProvider: MeterProvider;
  /** Exports the spans ended so far (backpressure for fast inputs). */
  flushTraces(): Promise<void>;
  /** Exports everything: spans and a final metric collection. */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

const DEFAULT_METRIC_EXPORT_INTERVAL_MILLIS = 60_000;
/** Larger than the SDK's 2048 so that replaying a log does not drop spans between flushes. */
const DEFAULT_BSP_MAX_QUEUE_SIZE = 65_536;
const DEFAULT_BSP_MAX_EXPORT_BATCH_SIZE = 2048;

/**
 * Starts standalone tracer and meter providers for users without their own SDK setup (and for
 * the CLI). Registers nothing globally. Exporters read `OTEL_EXPORTER_OTLP_*` themselves.
 */
export function startTelemetry(options: TelemetryOptions = {}): Telemetry {
  const env = options.env ?? process.env;
  const resource = resourceFromAttributes({
    'service.name': PACKAGE_NAME,
    'service.version': PACKAGE_VERSION,
    // Tells one process's cumulative metrics from the next one's (restarts, several replicas).
    'service.instance.id': randomUUID(),
  }).merge(detectResources({ detectors: [envDetector] }));

  const readers: IMetricReader[] = [...(options.metricReaders ?? [])];
  const chosen = options.disableMetrics === true ? undefined : chooseMetricExporter(env);
  const metricExporter =
    chosen === undefined || options.exportListener === undefined
      ? chosen
      : new WatchedMetricExporter(chosen, options.exportListener);
  if (metricExporter !== undefined) {
    readers.push(
      new PeriodicExportingMetricReader({
        exporter: metricExporter,
        exportIntervalMillis:
          envMillis(env, 'OTEL_METRIC_EXPORT_INTERVAL') ??
          options.metricExportIntervalMillis ??
          DEFAULT_METRIC_EXPORT_INTERVAL_MILLIS,
      }),
    );
  }
  const meterProvider = new MeterProvider({ resource, readers });

  const spanProcessors: SpanProcessor[] = [];
  if (options.spanExporter !== undefined) {
    spanProcessors.push(new SimpleSpanProcessor({ exporter: options.spanExporter }));
  } else {
    const name = resolveExporterName(env, 'OTEL_TRACES_EXPORTER');
    if (name === 'otlp') {
      const exporter = otlpTraceExporter(env);
      const watched =
        options.exportListener === undefined
          ? exporter
          : new WatchedSpanExporter(exporter, options.exportListener);
      spanProcessors.push(batchProcessor(env, watched, meterProvider));
    }
    if (name === 'console')
      spanProcessors.push(new SimpleSpanProcessor({ exporter: new ConsoleSpanExporter() }));
  }
  const tracerProvider = new TracerProvider({
    resource,
    idGenerator: new AgentRunIdGenerator(),
    spanProcessors,
  });

  return {
    tracerProvider,
    meterProvider,
    flushTraces: () => tracerProvider.forceFlush(),
    async flush() {
      await tracerProvider.forceFlush();
      await meterProvider.forceFlush();
    },
    async shutdown() {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}

function otlpTraceExporter(env: Env): SpanExporter {
  return resolveProtocol(env, 'TRACES') === 'http/json'
    ? new OTLPTraceExporterJson()
    : new OTLPTraceExporterProto();
}

function chooseMetricExporter(env: Env): PushMetricExporter | undefined {
  const name = resolveExporterName(env, 'OTEL_METRICS_EXPORTER');
  if (name === 'none') return undefined;
  if (name === 'console') return new ConsoleMetricExporter();
  return resolveProtocol(env, 'METRICS') === 'http/json'
    ? new OTLPMetricExporterJson()
    : new OTLPMetricExporterProto();
}

/**
 * The batch span processor as the OTEL_BSP_* variables configure it (SDK 3 reads them only in
 * sdk-node). Spans dropped because its queue is full are counted in the SDK's own
 * `otel.sdk.processor.span.processed{error.type="queue_full"}`, exported with the bridge's metrics.
 */
function batchProcessor(
  env: Env,
  exporter: SpanExporter,
  selfObsMeterProvider: MeterProvider,
): SpanProcessor {
  const delay = envMillis(env, 'OTEL_BSP_SCHEDULE_DELAY');
  const timeout = envMillis(env, 'OTEL_BSP_EXPORT_TIMEOUT');
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

function envMillis(env: Env, name: string): number | undefined {
  const value = Number(env[name]);
  return Number.isFinite(value) && value > 0 ? value : undefined;
}
