import { readFileSync } from 'node:fs';
import { homedir, hostname } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { INPUT_DIALECTS } from '../dialects/detect.js';
import type { InputDialect } from '../dialects/detect.js';
import type { NatsSourceOptions } from '../sources/nats-source.js';
import type { RedisSourceOptions } from '../sources/redis-source.js';
import type { ConsumeOptions } from './consume.js';
import type { ServeOptions } from './serve.js';
export { USAGE } from './usage.js';

export type OutputMode = 'auto' | 'otlp' | 'terminal';

export interface CommonOptions {
  readonly dialect: InputDialect;
  readonly output: OutputMode;
  readonly agentName: string | undefined;
  readonly captureContent: boolean | undefined;
  readonly quiet: boolean;
}

export type Command =
  | {
      readonly name: 'ingest';
      readonly files: readonly string[];
      readonly strict: boolean;
      /** Tail the files as they grow (and are rotated) until SIGINT/SIGTERM. */
      readonly follow: boolean;
      readonly common: CommonOptions;
    }
  | { readonly name: 'demo'; readonly runs: number; readonly common: CommonOptions }
  | { readonly name: 'validate'; readonly files: readonly string[]; readonly common: CommonOptions }
  | {
      readonly name: 'crabtalk';
      readonly endpoint:
        { readonly socket: string } | { readonly host: string; readonly port: number };
      readonly common: CommonOptions;
    }
  | {
      readonly name: 'nats';
      readonly nats: NatsSourceOptions;
      readonly consume: ConsumeOptions;
      readonly common: CommonOptions;
    }
  | {
      readonly name: 'redis';
      readonly redis: RedisSourceOptions;
      readonly consume: ConsumeOptions;
      readonly common: CommonOptions;
    }
  | { readonly name: 'serve'; readonly serve: ServeOptions; readonly common: CommonOptions }
  | { readonly name: 'help' }
  | { readonly name: 'version' };

/** A bad flag: the CLI prints the message on one line and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export function parseCommand(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = {},
): Command {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        dialect: { type: 'string' },
        strict: { type: 'boolean' },
        follow: { type: 'boolean', short: 'f' },
        runs: { type: 'string' },
        socket: { type: 'string' },
        url: { type: 'string' },
        stream: { type: 'string' },
        subject: { type: 'string' },
        durable: { type: 'string' },
        'ack-wait-ms': { type: 'string' },
        'max-ack-pending': { type: 'string' },
        group: { type: 'string' },
        consumer: { type: 'string' },
        'claim-idle-ms': { type: 'string' },
        'grace-ms': { type: 'string' },
        'end-open-runs-on-shutdown': { type: 'boolean' },
        port: { type: 'string' },
        host: { type: 'string' },
        'token-env': { type: 'string' },
        'allow-unauthenticated': { type: 'boolean' },
        'max-body-bytes': { type: 'string' },
        'max-line-bytes': { type: 'string' },
        'max-requests-per-second': { type: 'string' },
        'prometheus-port': { type: 'string' },
        'tls-cert': { type: 'string' },
        'tls-key': { type: 'string' },
        tcp: { type: 'string' },
        output: { type: 'string' },
        'agent-name': { type: 'string' },
        'capture-content': { type: 'boolean' },
        quiet: { type: 'boolean', short: 'q' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean' },
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values.version === true) return { name: 'version' };
  const [name, ...rest] = positionals;
  if (values.help === true || name === undefined || name === 'help') return { name: 'help' };
  const dialect = values.dialect ?? 'auto';
  if (!(INPUT_DIALECTS as readonly string[]).includes(dialect)) {
    throw new UsageError(`--dialect must be one of ${INPUT_DIALECTS.join(', ')}, got ${dialect}`);
  }
  const output = values.output ?? 'auto';
  if (output !== 'auto' && output !== 'otlp' && output !== 'terminal') {
    throw new UsageError(`--output must be auto, otlp or terminal, got ${output}`);
  }
  const common: CommonOptions = {
    dialect: dialect as InputDialect,
    output,
    agentName: values['agent-name'],
    captureContent: values['capture-content'],
    quiet: values.quiet === true,
  };
  const int = (flag: string, fallback: number) => {
    const raw = (values as Record<string, string | boolean | undefined>)[flag];
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isSafeInteger(n) || n <= 0)
      throw new UsageError(`--${flag} must be a positive integer, got ${String(raw)}`);
    return n;
  };
  switch (name) {
    case 'serve': {
      if (rest.length > 0) throw new UsageError(`serve takes no arguments, got ${rest.join(' ')}`);
      const host = values.host ?? '127.0.0.1';
      const tokenEnv = values['token-env'] ?? 'AGENT_OTEL_BRIDGE_HTTP_TOKEN';
      const token = env[tokenEnv]?.trim() || undefined;
      if (values['token-env'] !== undefined && token === undefined)
        throw new UsageError(`--token-env ${tokenEnv}: that variable is not set`);
      const loopback = host === 'localhost' || host === '::1' || host.startsWith('127.');
      if (!loopback && token === undefined && values['allow-unauthenticated'] !== true) {
        throw new UsageError(
          `refusing to listen on ${host} without a token: set AGENT_OTEL_BRIDGE_HTTP_TOKEN (or --token-env), or pass --allow-unauthenticated`,
        );
      }
      return {
        name,
        common,
        serve: {
          host,
          port: toPort(values.port, 4320),
          token,
          maxBodyBytes: int('max-body-bytes', 10 * 1024 * 1024),
          maxLineBytes: int('max-line-bytes', 1024 * 1024),
          maxRequestsPerSecond: int('max-requests-per-second', 1000),
          prometheusPort:
            values['prometheus-port'] === undefined ? undefined : int('prometheus-port', 9464),
          tls: readTls(values['tls-cert'], values['tls-key']),
        },
      };
    }
    case 'ingest': {
      const files = rest.length === 0 ? ['-'] : rest;
      const follow = values.follow === true;
      if (follow && files.includes('-')) throw new UsageError('--follow needs files, not stdin');
      return { name, files, strict: values.strict === true, follow, common };
    }
    case 'demo': {
      if (rest.length > 0) throw new UsageError(`demo takes no arguments, got ${rest.join(' ')}`);
      const runs = values.runs === undefined ? 6 : Number(values.runs);
      if (!Number.isSafeInteger(runs) || runs < 1)
        throw new UsageError(`--runs must be a positive integer, got ${values.runs}`);
      return { name, runs, common };
    }
    case 'nats':
    case 'redis': {
      if (rest.length > 0)
        throw new UsageError(`${name} takes no arguments, got ${rest.join(' ')}`);
      if (values.stream === undefined) throw new UsageError(`${name} needs --stream`);
      const maxPending = int('max-ack-pending', 20_000);
      const consume: ConsumeOptions = {
        scope: name === 'nats' ? (values.subject ?? values.stream) : values.stream,
        maxPending,
        endOpenRunsOnShutdown: values['end-open-runs-on-shutdown'] === true,
        graceMillis: int('grace-ms', 10_000),
      };
      if (name === 'nats') {
        if (values.subject === undefined) throw new UsageError('nats needs --subject');
        return {
          name,
          common,
          consume,
          nats: {
            url: values.url ?? 'nats://127.0.0.1:4222',
            stream: values.stream,
            subject: values.subject,
            durable: values.durable ?? 'agent-otel-bridge',
            ackWaitMillis: int('ack-wait-ms', 30_000),
            maxAckPending: maxPending,
            batchSize: 256,
          },
        };
      }
      return {
        name,
        common,
        consume,
        redis: {
          url: values.url ?? 'redis://127.0.0.1:6379',
          stream: values.stream,
          group: values.group ?? 'agent-otel-bridge',
          consumer: values.consumer ?? hostname(),
          claimIdleMillis: int('claim-idle-ms', 60_000),
          batchSize: 256,
        },
      };
    }
    case 'validate':
      if (rest.length === 0)
        throw new UsageError('validate needs at least one FILE (or - for stdin)');
      return { name, files: rest, common };
    case 'crabtalk': {
      if (rest.length > 0)
        throw new UsageError(`crabtalk takes no arguments, got ${rest.join(' ')}`);
      if (values.socket !== undefined && values.tcp !== undefined)
        throw new UsageError('give --socket or --tcp, not both');
      if (values.tcp !== undefined) {
        const match = /^(.+):(\d{1,5})$/.exec(values.tcp);
        const port = Number(match?.[2]);
        if (match === null || port < 1 || port > 65535)
          throw new UsageError(`--tcp must be HOST:PORT, got ${values.tcp}`);
        return { name, endpoint: { host: match[1]!.replace(/^\[|\]$/g, ''), port }, common };
      }
      return { name, endpoint: { socket: values.socket ?? defaultCrabtalkSocket() }, common };
    }
    default:
      throw new UsageError(`unknown command ${name}; try 'agent-otel-bridge help'`);
  }
}

function defaultCrabtalkSocket(): string {
  return join(homedir(), '.crabtalk', 'run', 'crabtalk.sock');
}

function toPort(raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port must be 0–65535, got ${raw}`);
  return port;
}

function readTls(
  certFile: string | undefined,
  keyFile: string | undefined,
): { cert: string; key: string } | undefined {
  if (certFile === undefined && keyFile === undefined) return undefined;
  if (certFile === undefined || keyFile === undefined)
    throw new UsageError('--tls-cert and --tls-key go together');
  try {
    return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
  } catch (error) {
    throw new UsageError(
      `cannot read the TLS files: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
