#!/usr/bin/env node
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { ConfigError } from '../config.js';
import { createDemoLines } from '../sources/demo-runs.js';
import { followFile } from '../sources/follow-file.js';
import { readLines } from '../sources/ndjson-lines.js';
import type { InputLine } from '../sources/ndjson-lines.js';
import { PACKAGE_VERSION } from '../version.js';
import { parseCommand, UsageError, USAGE } from './args.js';
import type { Command } from './args.js';
import { printBridgeDiagnostics } from './diagnostics.js';
import { runPipeline } from './pipeline.js';
import { validate } from './validate.js';
import type { Input, Io } from './pipeline.js';

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
      return 2;
    }
    throw error;
  }
  if ('common' in command) printBridgeDiagnostics(process.stderr, command.common.quiet);
  const io: Io = {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    progress: process.stderr.isTTY,
  };
  switch (command.name) {
    case 'help':
      process.stdout.write(`${USAGE}\n`);
      return 0;
    case 'version':
      process.stdout.write(`${PACKAGE_VERSION}\n`);
      return 0;
    case 'ingest': {
      const stop = new AbortController();
      if (command.follow) {
        process.once('SIGINT', () => stop.abort());
        process.once('SIGTERM', () => stop.abort());
      }
      const inputs: Input[] = command.files.map((file) => ({
        name: file === '-' ? 'stdin' : file,
        lines: readLines(
          command.follow
            ? followFile(file, { signal: stop.signal })
            : file === '-'
              ? (process.stdin as Readable)
              : createReadStream(file),
        ),
      }));
      const rejected = await runPipeline(io, command.common, 'ingest', inputs);
      return command.strict && rejected > 0 ? 1 : 0;
    }
    case 'validate': {
      const inputs: Input[] = command.files.map((file) => ({
        name: file === '-' ? 'stdin' : file,
        lines: readLines(file === '-' ? (process.stdin as Readable) : createReadStream(file)),
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
      const { runServe } = await import('./serve.js');
      return runServe(io, command.common, command.serve);
    }
    case 'nats': {
      const [{ runConsumer }, { createNatsSource }] = await Promise.all([
        import('./consume.js'),
        import('../sources/nats-source.js'),
      ]);
      return runConsumer(
        io,
        command.common,
        createNatsSource({ ...command.nats, report: say(command.common.quiet) }),
        command.consume,
      );
    }
    case 'redis': {
      const [{ runConsumer }, { createRedisSource }] = await Promise.all([
        import('./consume.js'),
        import('../sources/redis-source.js'),
      ]);
      return runConsumer(
        io,
        command.common,
        createRedisSource({ ...command.redis, report: say(command.common.quiet) }),
        command.consume,
      );
    }
    case 'crabtalk': {
      const { runCrabtalk } = await import('./crabtalk.js');
      return runCrabtalk(io, command.common, command.endpoint);
    }
    case 'demo': {
      const lines = createDemoLines(command.runs);
      const common = { ...command.common, agentName: command.common.agentName ?? 'demo-agent' };
      await runPipeline(io, common, 'demo', [{ name: 'demo', lines: toInputLines(lines) }]);
      return 0;
    }
  }
}

function* toInputLines(lines: readonly string[]): Generator<InputLine> {
  let lineNumber = 0;
  for (const text of lines) yield { ok: true, lineNumber: ++lineNumber, text };
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`agent-otel-bridge: ${message}\n`);
    process.exit(error instanceof ConfigError ? 2 : 1);
  },
);
