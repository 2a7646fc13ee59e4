import { detectResources, resourceFromAttributes } from '@opentelemetry/resources';
import {
  ConsoleMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import type { IMetricReader, PushMetricExporter } from '@opentelemetry/sdk-metrics';
import { ConsoleSpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import type { SpanExporter, SpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { envResourceDetector } from './env-resource.js';
import { samplerFromEnv } from './sampler-choice.js';
import {
  destinationMetricExporter,
  destinationProbeEnv,
  destinationsFromEnv,
  destinationSpanExporter,
} from './destinations.js';
import type { Destination } from './destinations.js';
import { RunSamplingProcessor } from './sampling/run-sampling-processor.js';
import { TalliedHistograms } from './metrics/tallied-histograms.js';
import { TallyingMeterProvider } from './metrics/tallying-meter-provider.js';
import { LeanTracerProvider } from './spans/lean-tracer-provider.js';
import { runSamplingFromEnv } from './sampling/run-sampling-policy.js';
import type { RunSamplingPolicy } from './sampling/run-sampling-policy.js';
import { randomUUID } from 'node:crypto';
import type { Env } from '../sink-options.js';
import { AgentRunIdGenerator } from '../mapping/id-generator.js';
import { PACKAGE_NAME, PACKAGE_VERSION } from '../version.js';
import { resolveExporterNames } from './exporter-choice.js';
import { WatchedMetricExporter, WatchedSpanExporter } from './export/export-watcher.js';
import { RetryingMetricExporter, RetryingSpanExporter } from './export/retrying-export.js';
import { SerialMetricExporter } from './export/serial-metric-exporter.js';
import { Outage } from './export/outage.js';
import { probeCollector } from './collector-probe.js';
import { batchProcessor, envMillis } from './batch-processor-from-env.js';
import type { BatchProcessing } from './batch-processor-from-env.js';
import { chooseMetricExporters, otlpTraceExporter } from './otlp-exporters.js';
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
  /**
   * Whole-run sampling (docs/sampling.md). Default: from `AGENT_OTEL_BRIDGE_SAMPLE_RATIO` and the
   * `AGENT_OTEL_BRIDGE_KEEP_*` variables; none when the ratio is not set.
   */
  readonly runSampling?: RunSamplingPolicy;
  /**
   * More OTLP destinations, each with its own exporters, hold and accounting. Default: from
   * `AGENT_OTEL_BRIDGE_DESTINATIONS` (docs/destinations.md).
   */
  readonly destinations?: readonly Destination[];
  /** Told about each extra destination's exports (its own delivery accounting). */
  readonly destinationListener?: (destination: Destination) => ExportListener | undefined;
}

/** Providers set up from the standard OpenTelemetry environment, with the bridge's id generator. */
export interface Telemetry {
  readonly tracerProvider: TracerProvider;
  readonly meterProvider: MeterProvider;
  /** Exports the spans ended so far (backpressure for fast inputs). */
  flushTraces(): Promise<void>;
  /**
   * How full the environment's destination's span queue is: 1 when full, past 1 while spans wait
   * in the bridge for room in it (0 where nothing is told of its exports). A source that reads on
   * while it is over half full only adds to what waits.
   */
  spanQueueLoad(): number;
  /** Exports everything: spans and a final metric collection. */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

const DEFAULT_METRIC_EXPORT_INTERVAL_MILLIS = 60_000;

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
  }).merge(detectResources({ detectors: [envResourceDetector(env)] }));

  const readers: IMetricReader[] = [...(options.metricReaders ?? [])];
  const hold = options.holdThroughOutageMillis;
  // One outage for spans and metrics alike: the hold is one budget however many exports wait.
  const outage =
    hold === undefined
      ? undefined
      : new Outage(hold, (error) => options.exportListener?.outageStarted?.(error));
  // An export held through an outage must not be timed out by its processor or reader first.
  const exportTimeout = hold === undefined ? undefined : hold + HELD_EXPORT_MARGIN_MILLIS;
  const destinations = options.destinations ?? destinationsFromEnv(env);
  const pipelines = destinations.map((d) => {
    const listener = options.destinationListener?.(d);
    const own =
      hold === undefined
        ? undefined
        : new Outage(hold, (error) => listener?.outageStarted?.(error));
    if (own !== undefined)
      void probeCollector(destinationProbeEnv(d)).then((problem) => {
        if (problem === undefined) own.reachable();
        else listener?.collectorUnreachable?.(problem);
      });
    return { destination: d, listener, outage: own };
  });
  const interval =
    envMillis(env, 'OTEL_METRIC_EXPORT_INTERVAL') ??
    options.metricExportIntervalMillis ??
    DEFAULT_METRIC_EXPORT_INTERVAL_MILLIS;
  // The interval is the user's. The SDK's reader cannot wait longer than its interval for one
  // export; a held export (outages) is taken off its hands and sent in order behind it.
  // The bridge's histograms are aggregated in the bridge and reported by a producer on each
  // reader, where every reader is made here (a reader made elsewhere has no producer of ours).
  const tallies = readers.length === 0 ? new TalliedHistograms(resource) : undefined;
  const periodicReader = (exporter: PushMetricExporter) => {
    const producer = tallies?.producer();
    const reader = new PeriodicExportingMetricReader({
      exporter:
        exportTimeout === undefined || exportTimeout <= interval
          ? exporter
          : new SerialMetricExporter(exporter),
      exportIntervalMillis: interval,
      exportTimeoutMillis: Math.min(
        interval,
        exportTimeout ?? envMillis(env, 'OTEL_METRIC_EXPORT_TIMEOUT') ?? 30_000,
      ),
      ...(producer === undefined ? {} : { metricProducers: [producer] }),
    });
    producer?.bind(reader);
    return reader;
  };
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
    readers.push(periodicReader(metricExporter));
  }
  for (const { destination, listener, outage: own } of pipelines) {
    if (!destination.metrics || options.disableMetrics === true) continue;
    const held =
      own === undefined
        ? destinationMetricExporter(destination)
        : new RetryingMetricExporter(destinationMetricExporter(destination), own);
    readers.push(
      periodicReader(listener === undefined ? held : new WatchedMetricExporter(held, listener)),
    );
  }
  const meterProvider =
    tallies === undefined
      ? new MeterProvider({ resource, readers })
      : new TallyingMeterProvider({ resource, readers }, tallies, new Set([PACKAGE_NAME]));
  // Where exports are held, whether anything listens at the address decides how long (`Outage`).
  if (outage !== undefined)
    void probeCollector(env).then((problem) => {
      if (problem === undefined) outage.reachable();
      else options.exportListener?.collectorUnreachable?.(problem);
    });

  const spanProcessors: SpanProcessor[] = [];
  const primaryBatches: SpanProcessor[] = [];
  const primaryQueues: BatchProcessing[] = [];
  const destinationBatches: { processor: SpanProcessor; outage: Outage | undefined }[] = [];
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
      const primary = batchProcessor(env, watched, meterProvider, exportTimeout, listener);
      primaryBatches.push(primary.processor);
      primaryQueues.push(primary);
      spanProcessors.push(primary.processor);
    }
    if (names.includes('console'))
      spanProcessors.push(new SimpleSpanProcessor({ exporter: new ConsoleSpanExporter() }));
  }
  // Every extra destination: its own batch processor, so that one failing never holds the others.
  if (options.spanExporter === undefined)
    for (const { destination, listener, outage: own } of pipelines) {
      if (!destination.traces) continue;
      const bounded = new SizeBoundedSpanExporter(
        destinationSpanExporter(destination),
        envMillis(env, 'AGENT_OTEL_BRIDGE_MAX_EXPORT_BYTES') ?? DEFAULT_MAX_EXPORT_BYTES,
      );
      const held =
        own === undefined
          ? bounded
          : new RetryingSpanExporter(bounded, own, () => listener?.exportRetrying?.());
      const watched = listener === undefined ? held : new WatchedSpanExporter(held, listener);
      // Nothing waits for an extra destination: past its queue, spans are dropped and counted.
      const { processor } = batchProcessor(env, watched, meterProvider, exportTimeout);
      destinationBatches.push({ processor, outage: own });
      spanProcessors.push(processor);
    }
  // Whole-run sampling holds each run's spans until its end, then keeps or drops the run.
  const runSampling = options.runSampling ?? runSamplingFromEnv(env);
  if (runSampling !== undefined && spanProcessors.length > 0) {
    const sampling = new RunSamplingProcessor(spanProcessors.splice(0), runSampling, {
      meterProvider,
      ...(options.exportListener === undefined ? {} : { listener: options.exportListener }),
    });
    spanProcessors.push(sampling);
  }
  const sampler = samplerFromEnv(env);
  // The SDK's provider and processors, with spans that skip its per-value checks (LeanSpan).
  const tracerProvider = new LeanTracerProvider(
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
    spanQueueLoad: () => Math.max(0, ...primaryQueues.map((q) => q.queueLoad())),
    // Backpressure waits for the environment's destination only: an extra destination in an
    // outage holds its own queue, never the input.
    flushTraces: async () => {
      if (primaryBatches.length === 0 && destinationBatches.length === 0)
        await tracerProvider.forceFlush();
      else
        await Promise.all([
          // With other destinations, a primary in an outage is not waited for either.
          ...(destinationBatches.length > 0 &&
          outage !== undefined &&
          outage.remaining() !== Infinity
            ? []
            : primaryBatches.map((p) => p.forceFlush())),
          // A destination in an outage is not waited for (its queue holds what it missed).
          ...destinationBatches
            .filter((d) => d.outage === undefined || d.outage.remaining() === Infinity)
            .map((d) => d.processor.forceFlush()),
        ]);
    },
    async flush() {
      await tracerProvider.forceFlush();
      await meterProvider.forceFlush();
    },
    async shutdown() {
      // Closing: an export still held when an outage's budget is spent is given up, probes too.
      outage?.close();
      for (const pipeline of pipelines) pipeline.outage?.close();
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}
