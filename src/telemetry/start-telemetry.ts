import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { OTLPMetricExporter as OTLPMetricExporterJson } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as OTLPMetricExporterProto } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPTraceExporter as OTLPTraceExporterJson } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPMetricExporter as OTLPMetricExporterGrpc } from '@opentelemetry/exporter-metrics-otlp-grpc';
import { OTLPTraceExporter as OTLPTraceExporterGrpc } from '@opentelemetry/exporter-trace-otlp-grpc';
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
import { OtlpProtoTraceExporter } from './otlp/otlp-proto-trace-exporter.js';
import { samplerFromEnv } from './sampler-choice.js';
import { randomUUID } from 'node:crypto';
import type { Env } from '../sink-options.js';
import { AgentRunIdGenerator } from '../mapping/id-generator.js';
import { PACKAGE_NAME, PACKAGE_VERSION } from '../version.js';
import { resolveExporterNames, resolveProtocol } from './exporter-choice.js';
import { WatchedMetricExporter, WatchedSpanExporter } from './export/export-watcher.js';
import { RetryingMetricExporter, RetryingSpanExporter } from './export/retrying-export.js';
import { SerialMetricExporter } from './export/serial-metric-exporter.js';
import { Outage } from './export/outage.js';
import { probeCollector } from './collector-probe.js';
import {
  DEFAULT_MAX_EXPORT_BYTES,
  SizeBoundedSpanExporter,
} from './export/size-bounded-span-exporter.js';

/** How much longer than the holding a processor or reader waits for an export. */
const HELD_EXPORT_MARGIN_MILLIS = 30_000;
import type { ExportListener } from './export/export-watcher.js';

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
  /**
   * Hold each export through a collector outage of up to this long, retrying, before it counts as
   * failed (`ingest`: a finite input waits for the collector rather than losing data). Default: no
   * holding beyond the exporters' own retries.
   */
  readonly holdThroughOutageMillis?: number;
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
export const DEFAULT_BSP_MAX_QUEUE_SIZE = 65_536;
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
  const hold = options.holdThroughOutageMillis;
  // One outage for spans and metrics alike: the hold is one budget however many exports wait.
  const outage =
    hold === undefined
      ? undefined
      : new Outage(hold, (error) => options.exportListener?.outageStarted?.(error));
  // An export held through an outage must not be timed out by its processor or reader first.
  const exportTimeout = hold === undefined ? undefined : hold + HELD_EXPORT_MARGIN_MILLIS;
  const picked = options.disableMetrics === true ? [] : chooseMetricExporters(env);
  for (const exporter of picked) {
    // The collector's exporters are held through outages and watched; the console's is not.
    const console = exporter instanceof ConsoleMetricExporter;
    const chosen =
      console || outage === undefined ? exporter : new RetryingMetricExporter(exporter, outage);
    const metricExporter =
      console || options.exportListener === undefined
        ? chosen
        : new WatchedMetricExporter(chosen, options.exportListener);
    const interval =
      envMillis(env, 'OTEL_METRIC_EXPORT_INTERVAL') ??
      options.metricExportIntervalMillis ??
      DEFAULT_METRIC_EXPORT_INTERVAL_MILLIS;
    // The interval is the user's. The SDK's reader cannot wait longer than its interval for one
    // export; a held export (outages) is taken off its hands and sent in order behind it.
    readers.push(
      new PeriodicExportingMetricReader({
        exporter:
          exportTimeout === undefined || exportTimeout <= interval
            ? metricExporter
            : new SerialMetricExporter(metricExporter),
        exportIntervalMillis: interval,
        exportTimeoutMillis: Math.min(
          interval,
          exportTimeout ?? envMillis(env, 'OTEL_METRIC_EXPORT_TIMEOUT') ?? 30_000,
        ),
      }),
    );
  }
  const meterProvider = new MeterProvider({ resource, readers });
  // Where exports are held, whether anything listens at the address decides how long (`Outage`).
  if (outage !== undefined)
    void probeCollector(env).then((problem) => {
      if (problem === undefined) outage.reachable();
      else options.exportListener?.collectorUnreachable?.(problem);
    });

  const spanProcessors: SpanProcessor[] = [];
  if (options.spanExporter !== undefined) {
    spanProcessors.push(new SimpleSpanProcessor({ exporter: options.spanExporter }));
  } else {
    const names = resolveExporterNames(env, 'OTEL_TRACES_EXPORTER');
    if (names.includes('otlp')) {
      // Requests below the usual body limits: a batch that would pass them is sent in parts.
      const otlp = new SizeBoundedSpanExporter(
        otlpTraceExporter(env),
        envMillis(env, 'AGENT_OTEL_BRIDGE_MAX_EXPORT_BYTES') ?? DEFAULT_MAX_EXPORT_BYTES,
      );
      const listener = options.exportListener;
      const exporter =
        outage === undefined
          ? otlp
          : new RetryingSpanExporter(otlp, outage, () => listener?.exportRetrying?.());
      const watched =
        options.exportListener === undefined
          ? exporter
          : new WatchedSpanExporter(exporter, options.exportListener);
      spanProcessors.push(batchProcessor(env, watched, meterProvider, exportTimeout));
    }
    if (names.includes('console'))
      spanProcessors.push(new SimpleSpanProcessor({ exporter: new ConsoleSpanExporter() }));
  }
  const sampler = samplerFromEnv(env);
  const tracerProvider = new FlushingTracerProvider(
    {
      resource,
      idGenerator: new AgentRunIdGenerator(),
      spanProcessors,
      ...(sampler === undefined ? {} : { sampler }),
    },
    exportTimeout,
  );

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

/**
 * A tracer provider whose flush waits as long as an export may be held through an outage: the
 * SDK's gives up after 30 s, while the batch it waits for is still being retried.
 */
class FlushingTracerProvider extends TracerProvider {
  constructor(
    config: ConstructorParameters<typeof TracerProvider>[0],
    private readonly flushTimeoutMillis: number | undefined,
  ) {
    super(config);
  }

  override forceFlush(options?: { timeoutMillis?: number }): Promise<void> {
    const timeoutMillis = options?.timeoutMillis ?? this.flushTimeoutMillis;
    return super.forceFlush(timeoutMillis === undefined ? options : { timeoutMillis });
  }
}

function otlpTraceExporter(env: Env): SpanExporter {
  const protocol = resolveProtocol(env, 'TRACES');
  if (protocol === 'grpc') return new OTLPTraceExporterGrpc();
  return protocol === 'http/json' ? new OTLPTraceExporterJson() : new OtlpProtoTraceExporter();
}

/** The metric exporters the environment names (a list: every one gets a reader). */
function chooseMetricExporters(env: Env): PushMetricExporter[] {
  return resolveExporterNames(env, 'OTEL_METRICS_EXPORTER').map((name) => {
    if (name === 'console') return new ConsoleMetricExporter();
    const protocol = resolveProtocol(env, 'METRICS');
    if (protocol === 'grpc') return new OTLPMetricExporterGrpc();
    return protocol === 'http/json' ? new OTLPMetricExporterJson() : new OTLPMetricExporterProto();
  });
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
  leastTimeout: number | undefined,
): SpanProcessor {
  const delay = envMillis(env, 'OTEL_BSP_SCHEDULE_DELAY');
  const configured = envMillis(env, 'OTEL_BSP_EXPORT_TIMEOUT');
  const timeout = leastTimeout === undefined ? configured : Math.max(configured ?? 0, leastTimeout);
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
