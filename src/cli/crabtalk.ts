import { CrabtalkFeedDecoder } from '../dialects/crabtalk-feed.js';
import { createAgentOtelSink } from '../sink.js';
import { subscribeCrabtalk } from '../sources/crabtalk-socket.js';
import type { CrabtalkEndpoint } from '../sources/crabtalk-socket.js';
import type { CommonOptions } from './args.js';
import { setUpOutput } from './output.js';
import type { Io } from './pipeline.js';
import { renderReport } from './report.js';

/** `agent-otel-bridge crabtalk`: maps a live daemon feed until SIGINT or SIGTERM. */
export async function runCrabtalk(
  io: Io,
  options: CommonOptions,
  endpoint: CrabtalkEndpoint,
): Promise<number> {
  const output = await setUpOutput(options.output === 'auto' ? 'otlp' : options.output, io.env);
  const sink = createAgentOtelSink({
    tracerProvider: output.telemetry.tracerProvider,
    meterProvider: output.telemetry.meterProvider,
    env: io.env,
    ...(options.agentName === undefined ? {} : { agentName: options.agentName }),
    ...(options.captureContent === undefined ? {} : { captureContent: options.captureContent }),
  });
  const decoder = new CrabtalkFeedDecoder(Date.now);
  const started = performance.now();
  let frames = 0;
  const say = (line: string) => {
    if (!options.quiet) io.stderr.write(`${line}\n`);
  };
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
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await subscription.close();
  await sink.shutdown();
  await output.telemetry.shutdown();
  if (!options.quiet) {
    const seconds = (performance.now() - started) / 1000;
    io.stdout.write(
      renderReport(output, { command: 'crabtalk', lines: frames, seconds, stats: sink.stats() }),
    );
  }
  return 0;
}
