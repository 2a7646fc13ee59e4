import { createCommandSink, createDeliveryTally, destinationTallies } from '../command-sink.js';
import type { CommonOptions, Input, Io } from '../command.js';
import { exportHoldMillis } from '../delivery.js';
import { PacedFlush } from '../paced-flush.js';
import { MAX_REPORTED_REJECTS, reportIngestEnd, sayUnknownOnce } from '../output/ingest-report.js';
import type { PipelineResult } from '../output/ingest-report.js';
import { setUpOutput } from '../output/output.js';
import { renderProgress } from '../output/summary.js';
import { sayCollectorTrouble } from '../output/collector-trouble.js';
import { describeTraceDestination } from '../../telemetry/index.js';
import type { HandleResult } from '../../sink/agent-otel-sink.js';
import { LINES_AT_ONCE } from '../../sink/line-decoding.js';
import { mapLineSlice } from '../../sink/map-line-slice.js';

const FLUSH_EVERY_LINES = 4096;
const PROGRESS_INTERVAL_MILLIS = 200;

/** Feeds inputs through one sink to the chosen output and says what was delivered. */
export async function runPipeline(
  io: Io,
  options: CommonOptions,
  command: string,
  inputs: readonly Input[],
  /** Aborted: stop reading (Ctrl-C); what was read is mapped, open runs end, all is exported. */
  interrupted?: AbortSignal,
): Promise<PipelineResult> {
  const delivery = createDeliveryTally(io.env);
  if (!options.quiet) sayCollectorTrouble(io, delivery, describeTraceDestination(io.env));
  const output = await setUpOutput(options.output, io.env, {
    exportListener: delivery,
    holdThroughOutageMillis: exportHoldMillis(io.env),
    destinationListener: destinationTallies(delivery, (tally, d) => {
      if (!options.quiet) sayCollectorTrouble(io, tally, `${d.name}, ${d.endpoint}`);
    }),
  });
  if (output.mode === 'otlp' && !options.quiet)
    sayCollectorTrouble(io, delivery, output.destination);
  const sink = createCommandSink(io.env, options, {
    telemetry: output.telemetry,
    onRunEnd: (run) => delivery.runEnded(run),
    dialect: options.dialect,
    countWindowsInEvents: true,
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
  const flushes = new PacedFlush(() => output.telemetry.flushTraces());
  const consume = async (input: Input) => {
    const stream = sink.openStream(input.name, options.dialect);
    try {
      const answers: HandleResult[] = [];
      reading: for await (const batch of input.batches)
        for (let from = 0; from < batch.length; from += LINES_AT_ONCE) {
          // Ctrl-C and the flush are looked at between slices.
          if (interrupted?.aborted === true) break reading;
          const to = Math.min(batch.length, from + LINES_AT_ONCE);
          mapLineSlice(sink, stream, batch, from, to, answers);
          const before = lines;
          for (let i = from; i < to; i += 1) {
            const line = batch[i]!;
            const result = answers[i - from]!;
            lines += 1;
            // Characters as a measure of bytes: enough for a progress estimate.
            readBytes += (line.ok ? line.text.length : 0) + 1;
            if (
              result.outcome === 'rejected' &&
              reported++ < MAX_REPORTED_REJECTS &&
              !options.quiet
            ) {
              io.stderr.write(
                `${input.name}:${line.lineNumber}: rejected: ${result.message ?? result.reason ?? ''}\n`,
              );
            }
            if (
              result.outcome === 'ignored' &&
              result.reason === 'unknown_variant' &&
              !options.quiet
            )
              sayUnknownOnce(io, unknownTypes, {
                where: `${input.name}:${line.lineNumber}`,
                key: `${result.dialect}:${result.sourceType ?? ''}`,
                message: result.message ?? 'unknown event type',
              });
          }
          if (Math.floor(lines / FLUSH_EVERY_LINES) !== Math.floor(before / FLUSH_EVERY_LINES)) {
            // Waits while an outage is held through; what still fails is counted at the end.
            const waiting = flushes.due();
            if (waiting !== undefined) await waiting;
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
    } catch (error) {
      // An interrupted read (stdin closed by Ctrl-C) ends the input; anything else is a failure.
      if (interrupted?.aborted !== true) throw error;
    }
  };
  await Promise.all(inputs.map(consume));
  await flushes.settled();
  sink.endOpenRuns(interrupted?.aborted === true ? 'shutdown' : 'end_of_input');
  await sink.shutdown();
  // Flushes spans and exports the final metrics, holding each export through an outage.
  await output.telemetry.shutdown().catch(() => undefined);
  if (io.progress) io.stderr.write('\r\u001b[K');
  const stats = sink.stats();
  return reportIngestEnd(io, options, {
    command,
    lines,
    seconds: (performance.now() - started) / 1000,
    stats,
    output,
    delivered: output.mode === 'otlp' ? delivery.result() : undefined,
    rejected: stats.events.rejected,
    reported,
  });
}
