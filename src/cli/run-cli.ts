import { accessSync, constants, createReadStream, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { ConfigError } from '../config.js';
import { assertInstalled } from '../optional-packages.js';
import { createDemoLines } from '../sources/demo-runs.js';
import { followFile } from '../sources/follow-file.js';
import { armGrace } from './grace.js';
import { readLineBatches } from '../sources/ndjson-lines.js';
import type { InputLine } from '../sources/ndjson-lines.js';
import { PACKAGE_VERSION } from '../version.js';
import { parseCommand, USAGE } from './args.js';
import { UsageError } from './usage-error.js';
import type { Command } from './command.js';
import { printBridgeDiagnostics } from './diagnostics.js';
import { commandUsage } from './usage.js';
import { EXIT_UNDELIVERED } from './delivery.js';
import { isExportConfigured } from '../telemetry/index.js';
import { runPipeline } from './commands/ingest.js';
import { validate } from './commands/validate.js';

/** Exit code of a usage error (bad flags, unreadable input files). */
const EXIT_USAGE = 2;
/** An ingest stopped by Ctrl-C before the end of its input (what it read was exported). */
const EXIT_INTERRUPTED = 130;

/** Why each of these input files cannot be read (`-` is stdin). */
function unreadableFiles(files: readonly string[]): string[] {
  const problems: string[] = [];
  for (const file of files) {
    if (file === '-') continue;
    try {
      accessSync(file, constants.R_OK);
      if (statSync(file).isDirectory()) problems.push(`cannot read ${file}: it is a directory`);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      problems.push(
        `cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : String(code)}`,
      );
    }
  }
  return problems;
}
import type { Input, Io } from './command.js';

/** A source's connection news on stderr, unless `--quiet`. */
function say(quiet: boolean): (message: string) => void {
  return (message) => {
    if (!quiet) process.stderr.write(`agent-otel-bridge: ${message}\n`);
  };
}

async function main(argv: readonly string[]): Promise<number> {
  let command: Command;
  try {
    command = parseCommand(argv, process.env);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`agent-otel-bridge: ${error.message}\n`);
      return EXIT_USAGE;
    }
    throw error;
  }
  // Flags that the export pipeline reads as environment variables (worker threads and processes
  // inherit them).
  if ('common' in command) Object.assign(process.env, command.common.samplingEnv ?? {});
  if ('common' in command)
    printBridgeDiagnostics(process.stderr, command.common.quiet, process.env);
  const io: Io = {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    progress: process.stderr.isTTY,
  };
  switch (command.name) {
    case 'help':
      process.stdout.write(
        `${command.command === undefined ? USAGE : commandUsage(command.command)}\n`,
      );
      return 0;
    case 'version':
      process.stdout.write(`${PACKAGE_VERSION}\n`);
      return 0;
    case 'ingest': {
      // Every file is checked before any is read: a typo must not cost the runs of the others.
      const unreadable = command.follow ? [] : unreadableFiles(command.files);
      if (unreadable.length > 0) {
        for (const problem of unreadable) process.stderr.write(`agent-otel-bridge: ${problem}\n`);
        return EXIT_USAGE;
      }
      const stop = new AbortController();
      if (!command.follow) {
        // Ctrl-C: stop reading, end the open runs as abandoned, export what was read and say so;
        // a second one quits at once.
        const interrupt = () => {
          if (stop.signal.aborted) process.exit(EXIT_INTERRUPTED);
          stop.abort();
          if (!command.common.quiet)
            process.stderr.write(
              'agent-otel-bridge: interrupted: open runs end as abandoned and what was read is exported (again to quit at once)\n',
            );
          if (command.files.includes('-')) process.stdin.destroy();
        };
        process.on('SIGINT', interrupt);
        process.on('SIGTERM', interrupt);
      }
      if (command.follow) {
        const stopping = () => {
          stop.abort();
          armGrace(
            command.graceMillis,
            (line) => process.stderr.write(line),
            'what was not yet exported not delivered',
          );
        };
        process.once('SIGINT', stopping);
        process.once('SIGTERM', stopping);
      }
      const inputs: Input[] = command.files.map((file) => {
        if (command.follow || file === '-')
          return {
            name: file === '-' ? 'stdin' : file,
            batches: readLineBatches(
              command.follow
                ? followFile(file, { signal: stop.signal })
                : (process.stdin as Readable),
            ),
          };
        const size = sizeOf(file);
        return {
          name: file,
          // Opened when first read: worker threads may read a regular file themselves instead.
          batches: { [Symbol.asyncIterator]: () => readLineBatches(createReadStream(file)) },
          ...size,
          ...(size.bytes === undefined ? {} : { path: file }),
        };
      });
      const parallel =
        command.workers > 1 && (command.common.output === 'otlp' || isExportConfigured(io.env));
      if (command.workers > 1 && !parallel && !command.common.quiet)
        process.stderr.write(
          'agent-otel-bridge: --workers needs OTLP export (OTEL_EXPORTER_OTLP_ENDPOINT or --output otlp); using one\n',
        );
      const result = parallel
        ? await (
            await import('./workers/ingest-main.js')
          ).runParallelPipeline(io, command.common, 'ingest', inputs, command.workers)
        : await runPipeline(
            io,
            command.common,
            'ingest',
            inputs,
            command.follow ? undefined : stop.signal,
          );
      if (result.undeliveredSpans > 0 || result.metricFailures > 0) return EXIT_UNDELIVERED;
      if (!command.follow && stop.signal.aborted) return EXIT_INTERRUPTED;
      // Nothing read was usable: not a success, even without --strict.
      if (result.lines > 0 && result.rejected >= result.lines) {
        if (!command.common.quiet)
          process.stderr.write(
            `agent-otel-bridge: every one of the ${result.lines} lines was rejected; nothing was mapped\n`,
          );
        return 1;
      }
      return command.strict && result.rejected > 0 ? 1 : 0;
    }
    case 'validate': {
      const unreadable = unreadableFiles(command.files);
      if (unreadable.length > 0) {
        for (const problem of unreadable) process.stderr.write(`agent-otel-bridge: ${problem}\n`);
        return EXIT_USAGE;
      }
      const inputs: Input[] = command.files.map((file) => ({
        name: file === '-' ? 'stdin' : file,
        batches: readLineBatches(
          file === '-' ? (process.stdin as Readable) : createReadStream(file),
        ),
      }));
      const ok = await validate(inputs, {
        dialect: command.common.dialect,
        quiet: command.common.quiet,
        stdout: process.stdout,
        env: process.env,
      });
      return ok ? 0 : 1;
    }
    // Long-running modes load their clients (HTTP, Prometheus, NATS, Redis) only when used.
    case 'serve': {
      const { runServe } = await import('./commands/serve.js');
      return runServe(io, command.common, command.serve);
    }
    case 'nats':
    case 'redis': {
      // Said once here rather than by each worker process: the broker's client is installed.
      assertInstalled(command.name);
      if ((command.partitions?.workers ?? 1) > 1) {
        const { runWorkerProcesses } = await import('./workers/worker-processes.js');
        return runWorkerProcesses(argv, command.partitions!.workers, say(command.common.quiet));
      }
      const [{ runConsumer }, { loadBroker }] = await Promise.all([
        import('./commands/consume.js'),
        import('./commands/broker-sources.js'),
      ]);
      const broker = await loadBroker(command);
      return runConsumer(
        io,
        command.common,
        (hooks) => broker.source(hooks, say(command.common.quiet)),
        command.consume,
        broker.checkpoints,
        broker.routedMarks,
      );
    }
    case 'top': {
      const { runTop } = await import('./commands/top.js');
      return runTop(io, command.top);
    }
    case 'route': {
      const { runRouter } = await import('./commands/route.js');
      return runRouter(io, command);
    }
    case 'crabtalk': {
      const { runCrabtalk } = await import('./commands/crabtalk.js');
      return runCrabtalk(io, command.common, command.endpoint, command.graceMillis);
    }
    case 'demo': {
      const lines = createDemoLines(command.runs);
      const common = { ...command.common, agentName: command.common.agentName ?? 'demo-agent' };
      await runPipeline(io, common, 'demo', [{ name: 'demo', batches: [toInputLines(lines)] }]);
      return 0;
    }
  }
}

function toInputLines(lines: readonly string[]): InputLine[] {
  return lines.map((text, i) => ({ ok: true, lineNumber: i + 1, text }));
}

// A reader that stops early (`validate FILE | head`) closes the pipe: that is the end of the output,
// not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`agent-otel-bridge: ${message}\n`);
    process.exit(error instanceof ConfigError ? 2 : 1);
  },
);

/** A regular file's size, for progress; nothing for pipes and devices. */
function sizeOf(file: string): { bytes?: number } {
  try {
    const stat = statSync(file);
    return stat.isFile() ? { bytes: stat.size } : {};
  } catch {
    return {};
  }
}
