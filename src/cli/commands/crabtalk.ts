import { CrabtalkFeedDecoder } from '../../dialects/crabtalk/crabtalk-feed.js';
import { subscribeCrabtalk } from '../../sources/crabtalk-socket.js';
import type { CrabtalkEndpoint } from '../../sources/crabtalk-socket.js';
import { resolveConfig } from '../../config.js';
import {
  commandSinkOptions,
  createCommandSink,
  createDeliveryTally,
  destinationTallies,
} from '../command-sink.js';
import type { CommonOptions } from '../command.js';
import { setUpOutput } from '../output/output.js';
import type { Io } from '../command.js';
import { renderReport } from '../output/report.js';
import { EXIT_UNDELIVERED } from '../delivery.js';

/** `agent-otel-bridge crabtalk`: maps a live daemon feed until SIGINT or SIGTERM. */
export async function runCrabtalk(
  io: Io,
  options: CommonOptions,
  endpoint: CrabtalkEndpoint,
  graceMillis: number,
): Promise<number> {
  const say = (line: string) => {
    if (!options.quiet) io.stderr.write(`${line}\n`);
  };
  // Listened for before anything is said: a signal sent on a first line must not find Node's
  // default (which kills the process) still in place.
  const stopped = new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  const delivery = createDeliveryTally(io.env);
  // `auto` as everywhere: OTLP when configured or a collector listens, else trace trees at the end.
  const output = await setUpOutput(options.output, io.env, {
    exportListener: delivery,
    destinationListener: destinationTallies(delivery),
  });
  if (output.mode === 'terminal')
    say(
      `crabtalk: ${output.reason}; trace trees are drawn when it stops (--output otlp to export)`,
    );
  const sink = createCommandSink(io.env, options, {
    telemetry: output.telemetry,
    onRunEnd: (run) => delivery.runEnded(run),
  });
  const { maxJsonDepth } = resolveConfig(commandSinkOptions(io.env, options));
  const decoder = new CrabtalkFeedDecoder(Date.now, maxJsonDepth);
  const started = performance.now();
  let frames = 0;

  const subscription = subscribeCrabtalk({
    endpoint,
    onStatus: (status) => say(`crabtalk: ${status.message}`),
    onFrame(bytes) {
      frames += 1;
      try {
        const decoded = decoder.decode(bytes);
        if (decoded.kind === 'event') {
          const result = sink.handleParsed(decoded.result, 'crabtalk');
          if (result.outcome === 'rejected')
            say(`crabtalk: frame ${frames} rejected: ${result.message ?? result.reason ?? ''}`);
        } else if (decoded.kind === 'error') {
          say(`crabtalk: ${decoded.message}`);
        }
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        sink.reject('malformed_frame', message);
        say(`crabtalk: frame ${frames} is malformed (${message}); skipped`);
      }
    },
  });
  await stopped;
  await subscription.close();
  // The final export gets --grace-ms: a collector that does not answer must not hold the exit.
  const exported = (async () => {
    await sink.shutdown();
    await output.telemetry.shutdown();
    return true;
  })().catch(() => true);
  const inTime = await Promise.race([
    exported,
    new Promise<false>((resolve) => setTimeout(() => resolve(false), graceMillis).unref()),
  ]);
  if (!inTime) say(`crabtalk: the final export took longer than ${graceMillis} ms; stopped it`);
  const result = delivery.result();
  const undelivered = output.mode === 'otlp' ? result.spans - result.delivered : 0;
  if (!options.quiet) {
    const seconds = (performance.now() - started) / 1000;
    io.stdout.write(
      renderReport(output, {
        command: 'crabtalk',
        lines: frames,
        seconds,
        stats: sink.stats(),
        ...(output.mode === 'otlp' ? { delivered: result } : {}),
      }),
    );
  }
  return undelivered > 0 ? EXIT_UNDELIVERED : 0;
}
