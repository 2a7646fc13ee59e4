import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { INPUT_DIALECTS } from '../events/dialect-name.js';
import type { InputDialect } from '../events/dialect-name.js';
import { brokerCommand, routeCommand } from './broker-args.js';
import type { Command, CommonOptions } from './command.js';
import { readTls, toPort } from './listen-args.js';
import { UsageError } from './usage-error.js';
import { usageProblem } from './usage-problem.js';
export { USAGE } from './usage.js';
import { COMMAND_OPTIONS, isCommandName } from './usage.js';

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
        workers: { type: 'string' },
        runs: { type: 'string' },
        socket: { type: 'string' },
        url: { type: 'string' },
        stream: { type: 'string' },
        subject: { type: 'string' },
        durable: { type: 'string' },
        'ack-wait-ms': { type: 'string' },
        'max-ack-pending': { type: 'string' },
        'checkpoint-every': { type: 'string' },
        group: { type: 'string' },
        consumer: { type: 'string' },
        'claim-idle-ms': { type: 'string' },
        partitions: { type: 'string' },
        'partition-stream': { type: 'string' },
        'lease-ms': { type: 'string' },
        'instance-id': { type: 'string' },
        'grace-ms': { type: 'string' },
        'end-open-runs-on-shutdown': { type: 'boolean' },
        'allow-shared-consumer': { type: 'boolean' },
        port: { type: 'string' },
        'status-port': { type: 'string' },
        field: { type: 'string' },
        'interval-ms': { type: 'string' },
        once: { type: 'boolean' },
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
        prices: { type: 'string' },
        'sample-ratio': { type: 'string' },
        'keep-slower-than-ms': { type: 'string' },
        'keep-tokens-above': { type: 'string' },
        'keep-cost-above': { type: 'string' },
        quiet: { type: 'boolean', short: 'q' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'V' },
      },
    });
  } catch (error) {
    throw new UsageError(usageProblem(error, argv));
  }
  const { values, positionals } = parsed;
  if (values.version === true) return { name: 'version' };
  const [name, ...rest] = positionals;
  if (name === 'version' && rest.length === 0) return { name: 'version' };
  if (name === 'help' && rest[0] !== undefined && isCommandName(rest[0]))
    return { name: 'help', command: rest[0] };
  if (values.help === true || name === undefined || name === 'help')
    return name !== undefined && isCommandName(name)
      ? { name: 'help', command: name }
      : { name: 'help' };
  if (isCommandName(name)) {
    const allowed = new Set<string>([...COMMAND_OPTIONS[name], 'help', 'version']);
    const foreign = Object.keys(values).filter((flag) => !allowed.has(flag));
    if (foreign.length > 0)
      throw new UsageError(
        `--${foreign[0]} is not an option of ${name}; see 'agent-otel-bridge ${name} --help'`,
      );
  }
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
    prices: values.prices,
    samplingEnv: samplingEnv(values),
    quiet: values.quiet === true,
    json: values.json === true,
  };
  const int = (flag: string, fallback: number, least = 1) => {
    const raw = (values as Record<string, string | boolean | undefined>)[flag];
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isSafeInteger(n) || n < least)
      throw new UsageError(
        `--${flag} must be ${least === 0 ? 'a non-negative' : 'a positive'} integer, got ${String(raw)}`,
      );
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
      const workers = int('workers', 1);
      if (workers > 1 && values['prometheus-port'] !== undefined)
        throw new UsageError(
          'serve --workers with --prometheus-port: each worker thread keeps metrics of its own; export them over OTLP (OTEL_EXPORTER_OTLP_ENDPOINT), one series per worker',
        );
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
          workers,
          graceMillis: int('grace-ms', 10_000),
          tls: readTls(values['tls-cert'], values['tls-key']),
        },
      };
    }
    case 'ingest': {
      const files = rest.length === 0 ? ['-'] : rest;
      const follow = values.follow === true;
      if (follow && files.includes('-')) throw new UsageError('--follow needs files, not stdin');
      const workers = int('workers', 1);
      if (workers > 1 && output === 'terminal')
        throw new UsageError(
          '--workers needs OTLP output: the terminal trace tree is drawn by one',
        );
      if (values['grace-ms'] !== undefined && !follow)
        throw new UsageError('--grace-ms is for ingest --follow (a finite ingest ends by itself)');
      return {
        name,
        files,
        strict: values.strict === true,
        follow,
        workers,
        graceMillis: int('grace-ms', 10_000),
        common,
      };
    }
    case 'demo': {
      if (rest.length > 0) throw new UsageError(`demo takes no arguments, got ${rest.join(' ')}`);
      const runs = values.runs === undefined ? 6 : Number(values.runs);
      if (!Number.isSafeInteger(runs) || runs < 1)
        throw new UsageError(`--runs must be a positive integer, got ${values.runs}`);
      return { name, runs, common };
    }
    case 'route':
      return routeCommand(rest, values, common, int);
    case 'top': {
      if (rest.length > 1) throw new UsageError(`top takes one URL at most, got ${rest.join(' ')}`);
      const url = rest[0] ?? 'http://127.0.0.1:4320';
      if (!/^https?:\/\/[^/]/.test(url))
        throw new UsageError(
          `top: the bridge's URL must start with http:// or https://, got ${url}`,
        );
      const tokenEnv = values['token-env'] ?? 'AGENT_OTEL_BRIDGE_HTTP_TOKEN';
      const token = env[tokenEnv]?.trim() || undefined;
      if (values['token-env'] !== undefined && token === undefined)
        throw new UsageError(`--token-env ${tokenEnv}: that variable is not set`);
      return {
        name,
        top: { url, token, intervalMillis: int('interval-ms', 1000), once: values.once === true },
      };
    }
    case 'nats':
    case 'redis':
      return brokerCommand(name, rest, values, common, int, env);
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
        return {
          name,
          endpoint: { host: match[1]!.replace(/^\[|\]$/g, ''), port },
          graceMillis: int('grace-ms', 5000),
          common,
        };
      }
      return {
        name,
        endpoint: { socket: values.socket ?? defaultCrabtalkSocket() },
        graceMillis: int('grace-ms', 5000),
        common,
      };
    }
    default:
      throw new UsageError(`unknown command ${name}; try 'agent-otel-bridge help'`);
  }
}

function defaultCrabtalkSocket(): string {
  return join(homedir(), '.crabtalk', 'run', 'crabtalk.sock');
}

/** The run-sampling flags, as the environment variables the export pipeline reads (checked there). */
function samplingEnv(values: Record<string, unknown>): Record<string, string> {
  const env: Record<string, string> = {};
  const flags = {
    'sample-ratio': 'AGENT_OTEL_BRIDGE_SAMPLE_RATIO',
    'keep-slower-than-ms': 'AGENT_OTEL_BRIDGE_KEEP_SLOWER_THAN_MS',
    'keep-tokens-above': 'AGENT_OTEL_BRIDGE_KEEP_TOKENS_ABOVE',
    'keep-cost-above': 'AGENT_OTEL_BRIDGE_KEEP_COST_ABOVE_USD',
  } as const;
  for (const [flag, name] of Object.entries(flags)) {
    const value = values[flag];
    if (typeof value === 'string') env[name] = value;
  }
  return env;
}
