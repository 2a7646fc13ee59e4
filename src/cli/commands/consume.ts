import type { Meter } from '@opentelemetry/api';
import type { CheckpointStore } from '../../checkpoints/checkpoint-store.js';
import { RunCheckpoints } from '../../checkpoints/run-checkpoints.js';
import { resolveConfig } from '../../config.js';
import { PACKAGE_NAME, PACKAGE_VERSION } from '../../version.js';
import type { BrokerSource } from '../../sources/broker-source.js';
import { DeliveryLedger } from '../../sources/delivery-ledger.js';
import { startStatusServer } from '../../sources/status-server.js';
import { partitionOf } from '../../partitions/partition-of.js';
import { ROUTER_SILENCE_MILLIS, RoutedClock } from '../../partitions/routed-marks.js';
import type { ListenForMarks } from '../../partitions/routed-marks.js';
import { startTelemetry } from '../../telemetry/index.js';
import { describeTraceDestination } from '../../telemetry/index.js';
import { commandSinkOptions, createCommandSink } from '../command-sink.js';
import type { CommonOptions, ConsumeOptions, Io } from '../command.js';
import { armGrace } from '../grace.js';
import { renderSummary } from '../output/summary.js';
import { pullGate } from './pull-gate.js';

/** Metric export interval for long-running sources: acks wait for it (OTEL_METRIC_EXPORT_INTERVAL wins). */
const SOURCE_METRIC_EXPORT_INTERVAL_MILLIS = 5000;
/** Least time between two exports forced by held messages. */
const PRESSURE_EXPORT_GAP_MILLIS = 500;
/** How often the process notes that it is free to run timers (a mark's arrival is bounded by it). */
const FREE_TICK_MILLIS = 10;
/**
 * The clock of durability: a run's end and a checkpoint's snapshot are compared with the time a
 * metric collection was taken, which the SDK reads from `Date.now()`. The monotonic clock
 * (`performance.timeOrigin + performance.now()`) drifts from it by milliseconds and more, enough
 * for a collection taken just after an event to look older than it.
 */
const clock = () => Date.now();

/**
 * Consumes a broker until SIGINT/SIGTERM with at-least-once delivery: a message is acknowledged
 * once its run's spans and a later metric collection have been exported.
 */
/** What a partitioned source asks of the consumer when a partition moves away. */
export interface ConsumerHooks {
  /** The bridge's own meter (for a source's metrics). */
  readonly meter: Meter;
  /**
   * Before the partition is handed over: checkpoint its open runs and export now, so that its
   * messages are acknowledged and its next owner records nothing again.
   */
  settle(partition: number): Promise<void>;
  /** Forget the partition's open runs; their messages go to the next owner. */
  drop(partition: number): void;
  /** Rebuild the partition's checkpointed runs before its messages are read. */
  restore(partition: number): Promise<void>;
  /** A message the source could not read (counted as rejected, said), left in the broker. */
  unreadable(message: string): void;
}

export async function runConsumer(
  io: Io,
  common: CommonOptions,
  makeSource: (hooks: ConsumerHooks) => BrokerSource,
  options: ConsumeOptions,
  checkpointStore?: () => Promise<CheckpointStore>,
  routedMarks?: ListenForMarks,
): Promise<number> {
  const say = (line: string) => {
    if (!common.quiet) io.stderr.write(`${line}\n`);
  };
  let forget: (runId: string) => void = () => undefined;
  let checkpoints: RunCheckpoints | undefined;
  const ledger = new DeliveryLedger(
    {
      outage: (message) => say(`export outage: ${message}; holding acknowledgements and retrying`),
      recovered: () => say('export recovered'),
      forgetRun: (runId) => {
        forget(runId);
        checkpoints?.rebuild(runId);
      },
      checkpointedRunDurable: (runId) => checkpoints?.durable(runId) ?? Promise.resolve(true),
    },
    clock,
  );
  const gate = pullGate({
    pending: () => ledger.pending,
    maxPending: options.maxPending,
    spanQueueLoad: () => telemetry.spanQueueLoad(),
    exportNow: () => exportNow(),
    get relieve() {
      return checkpoints === undefined ? undefined : () => checkpoints?.relieve();
    },
    say,
  });
  let waitingSaid = false;
  const telemetry = startTelemetry({
    env: io.env,
    exportListener: {
      spansExported: (spans) => ledger.spansExported(spans),
      // Dropped by run sampling: settled all the same.
      spansSampledOut: (spans) => ledger.spansExported(spans),
      spansFailed: (spans, error, superseded) => ledger.spansFailed(spans, error, superseded),
      metricsExported: (collectedAt) => {
        ledger.metricsExported(collectedAt);
        checkpoints?.metricsExported(collectedAt);
      },
      metricsFailed: (error, superseded) => ledger.metricsFailed(error, superseded),
      spansWaiting: (capacity) => {
        if (waitingSaid) return;
        waitingSaid = true;
        say(
          `spans past the span export queue wait in the bridge for room in it (OTEL_BSP_MAX_QUEUE_SIZE ${capacity}), none dropped; pulling paused meanwhile (said once)`,
        );
      },
    },
    metricExportIntervalMillis: SOURCE_METRIC_EXPORT_INTERVAL_MILLIS,
  });
  const sink = createCommandSink(io.env, common, {
    telemetry,
    onRunEnd: (run) => {
      ledger.runEnded(run);
      checkpoints?.runEnded(run.runId);
    },
    hooks: { onAccepted: (event, dialect) => checkpoints?.accepted(event, dialect) },
  });
  forget = (runId) => sink.forgetRun(runId);
  const stream = sink.openStream(options.scope, common.dialect);
  const source = makeSource({
    meter: telemetry.meterProvider.getMeter(PACKAGE_NAME, PACKAGE_VERSION),
    // Saves under way land before the next owner can read the partition's checkpoints.
    settle: async (partition) => {
      if (checkpoints === undefined) await telemetry.flush();
      else await checkpoints.handOver(partition, () => telemetry.flush());
    },
    drop: (partition) => {
      for (const runId of ledger.releasePartition(partition)) {
        sink.dropRun(runId);
        checkpoints?.drop(runId);
      }
    },
    restore: (partition) => checkpoints?.restore(partition) ?? Promise.resolve(),
    unreadable: (message) => {
      sink.reject('missing_field', message);
      say(`message rejected: ${message}`);
    },
  });

  let stopRequested: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (stopRequested = resolve));
  process.once('SIGINT', stopRequested);
  process.once('SIGTERM', stopRequested);
  // A source waiting for its stream to be created stops waiting when asked to stop.
  void stopped.then(() => source.stop());
  await source.open();
  // Behind routers: reorder windows and grace periods count time only as far as they routed.
  let stopListening: (() => Promise<void>) | undefined;
  let freeTimer: NodeJS.Timeout | undefined;
  if (routedMarks !== undefined) {
    // When this process last ran a timer: a mark read now arrived no earlier (see RoutedClock).
    let freeAt = clock();
    freeTimer = setInterval(() => (freeAt = clock()), FREE_TICK_MILLIS);
    freeTimer.unref();
    const routed = new RoutedClock({
      arrivedAfter: () => freeAt,
      silenceMillis: ROUTER_SILENCE_MILLIS,
      now: clock,
      report: say,
      // Reading paused (--max-ack-pending) waits for held runs to end, and they end by this
      // clock: then marks take effect as heard, and the bound on held messages is what holds.
      readSince: (p) => (gate.paused() ? Infinity : (source.readToEnd?.(p) ?? Infinity)),
    });
    stopListening = await routedMarks((text) => routed.heard(text)).catch((error: unknown) => {
      say(
        `cannot hear the routers' drain marks (${error instanceof Error ? error.message : String(error)}); reorder windows run on this instance's clock`,
      );
      return undefined;
    });
    // Each partition by its own reads: one read late holds its own runs only.
    if (stopListening !== undefined) sink.readThrough((p) => routed.through(p));
  }
  if (options.checkpointEvery > 0 && checkpointStore !== undefined) {
    const config = resolveConfig(commandSinkOptions(io.env, common));
    checkpoints = new RunCheckpoints({
      store: await checkpointStore(),
      sink,
      ledger,
      everyMessages: options.checkpointEvery,
      content: { capture: config.captureContent, maxTextChars: config.maxContentBytes },
      report: say,
      meter: telemetry.meterProvider.getMeter(PACKAGE_NAME, PACKAGE_VERSION),
      mayWrite: (partition) => source.mayAct?.(partition) ?? true,
      now: clock,
    });
    if (!options.partitioned) await checkpoints.restore(undefined);
  }
  say(`consuming ${source.description}; ${describeTraceDestination(io.env)}`);
  const partitions = options.partitions;
  const status =
    options.status === undefined
      ? undefined
      : await startStatusServer({
          ...options.status,
          openRuns: (limit) => {
            const view = sink.openRuns(limit);
            if (partitions === undefined) return view;
            const runs = view.runs.map((run) => ({
              ...run,
              partition: partitionOf(run.runId, partitions),
            }));
            return { open: view.open, runs };
          },
        });
  if (status !== undefined) say(`runs in progress at ${status.url}/runs`);
  const started = performance.now();
  let messages = 0;
  let exporting = false;
  let exportedAt = 0;
  const exportNow = () => {
    // One at a time, and not more than twice a second (a collector in trouble is not hammered).
    if (exporting || performance.now() - exportedAt < PRESSURE_EXPORT_GAP_MILLIS) return;
    exporting = true;
    telemetry
      .flush()
      .catch(() => undefined)
      .finally(() => {
        exporting = false;
        exportedAt = performance.now();
      });
  };
  const keepAlive =
    source.keepAliveMillis === undefined
      ? undefined
      : setInterval(() => {
          for (const delivery of ledger.held()) delivery.keepAlive?.();
        }, source.keepAliveMillis);
  keepAlive?.unref();

  const running = source.run(
    (text, delivery) => {
      messages += 1;
      checkpoints?.beforeMessage(delivery.partition);
      const result = stream.handleJson(text, delivery.partition);
      if (result.outcome === 'rejected')
        say(`message ${messages} rejected: ${result.message ?? result.reason ?? ''}`);
      ledger.settle(delivery, result);
      checkpoints?.settled(delivery, result);
    },
    () => gate.canPull(),
    undefined,
    (millis, lane) => sink.holdFor(millis, lane),
  );
  await Promise.race([stopped, running]);

  // Graceful shutdown: stop taking input, apply what is in hand, flush, acknowledge, close.
  const disarm = armGrace(
    options.graceMillis,
    (line) => io.stderr.write(line),
    'messages unacknowledged (they will be redelivered)',
  );
  source.stop();
  await running.catch((error: unknown) =>
    say(`source stopped: ${error instanceof Error ? error.message : String(error)}`),
  );
  if (keepAlive !== undefined) clearInterval(keepAlive);
  clearInterval(freeTimer);
  await sink.shutdown({ endOpenRuns: options.endOpenRunsOnShutdown });
  await telemetry.shutdown();
  await source.close();
  await stopListening?.();
  await checkpoints?.close();
  await status?.close();
  disarm();
  if (!common.quiet) {
    const seconds = (performance.now() - started) / 1000;
    const lines = renderSummary({
      command: 'consume',
      lines: messages,
      seconds,
      stats: sink.stats(),
      destination: describeTraceDestination(io.env),
    });
    io.stdout.write(
      `${[
        ...lines,
        `  delivered ${ledger.runsDelivered} runs; acknowledged ${ledger.acknowledged} messages, held ${ledger.pending} unacknowledged for redelivery`,
      ].join('\n')}\n`,
    );
  }
  return 0;
}
