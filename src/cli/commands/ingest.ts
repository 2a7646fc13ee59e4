import type { Writable } from 'node:stream';
import type { Env } from '../../sink-options.js';
import { createBridgeSink } from '../../sink/bridge-sink.js';
import { DeliveryTally } from '../../telemetry/export/delivery-tally.js';
import { resolveExporterName } from '../../telemetry/exporter-choice.js';
import { exportHoldMillis } from '../delivery.js';
import type { InputLine } from '../../sources/ndjson-lines.js';
import type { CommonOptions } from '../command.js';
import { setUpOutput } from '../output/output.js';
import { renderJsonReport, renderReport } from '../output/report.js';
import { renderProgress } from '../output/summary.js';

export interface Io {
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly env: Env;
  /** Show a live progress line (stderr is a terminal). */
  readonly progress: boolean;
}

export interface Input {
  readonly name: string;
  readonly lines: AsyncIterable<InputLine> | Iterable<InputLine>;
  /** Its size, when known (a regular file): progress then says how far and how long. */
  readonly bytes?: number;
}

const FLUSH_EVERY_LINES = 4096;
const MAX_REPORTED_REJECTS = 20;
const PROGRESS_INTERVAL_MILLIS = 200;

/** What a pipeline did: input lines rejected, spans not delivered, metric exports that failed. */
export interface PipelineResult {
  readonly rejected: number;
  readonly undeliveredSpans: number;
  readonly metricFailures: number;
}

/** Feeds inputs through one sink to the chosen output and says what was delivered. */
export async function runPipeline(
  io: Io,
  options: CommonOptions,
  command: string,
  inputs: readonly Input[],
): Promise<PipelineResult> {
  const delivery = new DeliveryTally(
    resolveExporterName(io.env, 'OTEL_TRACES_EXPORTER') === 'otlp',
  );
  const holdMillis = exportHoldMillis(io.env);
  const output = await setUpOutput(options.output, io.env, {
    exportListener: delivery,
    holdThroughOutageMillis: holdMillis,
  });
  const sink = createBridgeSink({
    onRunEnd: (run) => delivery.runEnded(run),
    tracerProvider: output.telemetry.tracerProvider,
    meterProvider: output.telemetry.meterProvider,
    dialect: options.dialect,
    env: io.env,
    countWindowsInEvents: true,
    ...(options.agentName === undefined ? {} : { agentName: options.agentName }),
    ...(options.captureContent === undefined ? {} : { captureContent: options.captureContent }),
  });
  const started = performance.now();
  let lines = 0;
  let reported = 0;
  let lastProgress = 0;
  const unknownTypes = new Set<string>();
  let readBytes = 0;
  const totalBytes = inputs.every((i) => i.bytes !== undefined)
    ? inputs.reduce((t, i) => t + (i.bytes ?? 0), 0)
    : undefined;
  // Inputs are read side by side (a followed file never ends); each is a stream of its own, so
  // runtimes without run ids scope their runs to it.
  const consume = async (input: Input) => {
    const stream = sink.openStream(input.name, options.dialect);
    for await (const line of input.lines) {
      lines += 1;
      // Characters as a measure of bytes: enough for a progress estimate.
      readBytes += (line.ok ? line.text.length : 0) + 1;
      const result = line.ok
        ? stream.handleJson(line.text)
        : sink.reject(line.reason, line.message);
      if (result.outcome === 'rejected' && reported++ < MAX_REPORTED_REJECTS && !options.quiet) {
        io.stderr.write(
          `${input.name}:${line.lineNumber}: rejected: ${result.message ?? result.reason ?? ''}\n`,
        );
      }
      if (result.outcome === 'ignored' && result.reason === 'unknown_variant' && !options.quiet)
        sayUnknownOnce(io, unknownTypes, {
          where: `${input.name}:${line.lineNumber}`,
          key: `${result.dialect}:${result.sourceType ?? ''}`,
          message: result.message ?? 'unknown event type',
        });
      if (lines % FLUSH_EVERY_LINES === 0) {
        // Waits while an outage is held through; what still fails is counted at the end.
        await output.telemetry.flushTraces().catch(() => undefined);
        if (io.progress && performance.now() - lastProgress > PROGRESS_INTERVAL_MILLIS) {
          lastProgress = performance.now();
          io.stderr.write(
            `\r${renderProgress(lines, sink.stats(), {
              seconds: (performance.now() - started) / 1000,
              readBytes,
              ...(totalBytes === undefined ? {} : { totalBytes }),
            })}\u001b[K`,
          );
        }
      }
    }
  };
  await Promise.all(inputs.map(consume));
  sink.endOpenRuns('end_of_input');
  await sink.shutdown();
  // Flushes spans and exports the final metrics, holding each export through an outage.
  await output.telemetry.shutdown().catch(() => undefined);
  const stats = sink.stats();
  const delivered = delivery.result();
  const undeliveredSpans = output.mode === 'otlp' ? delivered.spans - delivered.delivered : 0;
  const metricFailures = output.mode === 'otlp' ? delivered.metricFailures : 0;
  sayUndelivered(io, {
    spans: delivered.spans,
    undeliveredSpans,
    metricFailures,
    destination: output.mode === 'otlp' ? output.destination : '',
  });
  if (io.progress) io.stderr.write('\r\u001b[K');
  sayIfWrongDialect(io, options, lines, stats.events.rejected);
  if (reported > MAX_REPORTED_REJECTS && !options.quiet) {
    io.stderr.write(`… and ${reported - MAX_REPORTED_REJECTS} more rejected lines\n`);
  }
  const run = {
    command,
    lines,
    seconds: (performance.now() - started) / 1000,
    stats,
    ...(output.mode === 'otlp' ? { delivered } : {}),
  };
  if (options.json) io.stdout.write(renderJsonReport(output, run));
  else if (!options.quiet) io.stdout.write(renderReport(output, run));
  return { rejected: stats.events.rejected, undeliveredSpans, metricFailures };
}

/** An event type nobody maps (a typo, a newer runtime) is said once per type, not only counted. */
export function sayUnknownOnce(
  io: Io,
  said: Set<string>,
  unknown: { readonly where: string; readonly key: string; readonly message: string },
): void {
  if (said.has(unknown.key)) return;
  said.add(unknown.key);
  io.stderr.write(
    `${unknown.where}: ignored: ${unknown.message} (said once per type; counted as ignored)\n`,
  );
}

/** A wrong --dialect rejects (nearly) everything: says what to try. */
export function sayIfWrongDialect(
  io: Io,
  options: CommonOptions,
  lines: number,
  rejected: number,
): void {
  if (options.dialect === 'auto' || lines === 0 || rejected < 0.9 * lines || options.quiet) return;
  io.stderr.write(
    `agent-otel-bridge: ${rejected} of ${lines} lines were rejected as ${options.dialect}: is the input another runtime's? Try --dialect auto, or 'agent-otel-bridge validate FILE' to see what each line is\n`,
  );
}

/** Says on stderr what the collector did not take, if anything. */
export function sayUndelivered(
  io: Io,
  result: {
    readonly spans: number;
    readonly undeliveredSpans: number;
    readonly metricFailures: number;
    readonly destination: string;
  },
): void {
  if (result.undeliveredSpans === 0 && result.metricFailures === 0) return;
  const metrics = result.metricFailures > 0 ? `, ${result.metricFailures} metric export(s)` : '';
  io.stderr.write(
    `agent-otel-bridge: not delivered: ${result.undeliveredSpans} of ${result.spans} spans${metrics} — the collector (${result.destination}) did not take them within ${exportHoldMillis(io.env)} ms of retrying (AGENT_OTEL_BRIDGE_EXPORT_HOLD_MS)\n`,
  );
}
