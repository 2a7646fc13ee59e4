import type { Writable } from 'node:stream';
import type { Env } from '../config.js';
import { createAgentOtelSink } from '../sink.js';
import type { InputLine } from '../sources/ndjson-lines.js';
import type { CommonOptions } from './args.js';
import { setUpOutput } from './output.js';
import { renderReport } from './report.js';
import { renderProgress } from './summary.js';

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
}

const FLUSH_EVERY_LINES = 4096;
const MAX_REPORTED_REJECTS = 20;
const PROGRESS_INTERVAL_MILLIS = 200;

/** Feeds inputs through one sink to the chosen output; returns the number of rejected lines. */
export async function runPipeline(
  io: Io,
  options: CommonOptions,
  command: string,
  inputs: readonly Input[],
): Promise<number> {
  const output = await setUpOutput(options.output, io.env);
  const sink = createAgentOtelSink({
    tracerProvider: output.telemetry.tracerProvider,
    meterProvider: output.telemetry.meterProvider,
    dialect: options.dialect,
    env: io.env,
    ...(options.agentName === undefined ? {} : { agentName: options.agentName }),
    ...(options.captureContent === undefined ? {} : { captureContent: options.captureContent }),
  });
  const started = performance.now();
  let lines = 0;
  let reported = 0;
  let lastProgress = 0;
  // Inputs are read side by side (a followed file never ends); each is a stream of its own, so
  // runtimes without run ids scope their runs to it.
  const consume = async (input: Input) => {
    const stream = sink.openStream(input.name, options.dialect);
    for await (const line of input.lines) {
      lines += 1;
      const result = line.ok
        ? stream.handleJson(line.text)
        : sink.reject(line.reason, line.message);
      if (result.outcome === 'rejected' && reported++ < MAX_REPORTED_REJECTS && !options.quiet) {
        io.stderr.write(
          `${input.name}:${line.lineNumber}: rejected: ${result.message ?? result.reason ?? ''}\n`,
        );
      }
      if (lines % FLUSH_EVERY_LINES === 0) {
        await output.telemetry.flushTraces();
        if (io.progress && performance.now() - lastProgress > PROGRESS_INTERVAL_MILLIS) {
          lastProgress = performance.now();
          io.stderr.write(`\r${renderProgress(lines, sink.stats())}\u001b[K`);
        }
      }
    }
  };
  await Promise.all(inputs.map(consume));
  sink.endOpenRuns('end_of_input');
  await sink.shutdown();
  await output.telemetry.shutdown(); // flushes spans and exports the final metrics
  const stats = sink.stats();
  if (io.progress) io.stderr.write('\r\u001b[K');
  if (reported > MAX_REPORTED_REJECTS && !options.quiet) {
    io.stderr.write(`… and ${reported - MAX_REPORTED_REJECTS} more rejected lines\n`);
  }
  if (!options.quiet) {
    io.stdout.write(
      renderReport(output, {
        command,
        lines,
        seconds: (performance.now() - started) / 1000,
        stats,
      }),
    );
  }
  return stats.events.rejected;
}
