import { hostname } from 'node:os';
import type { Command, CommonOptions, ConsumeOptions, PartitionOptions } from './command.js';

import { UsageError } from './usage-error.js';

/** The parsed flags, by name (`--stream` is `stream`). */
export interface FlagValues {
  readonly [flag: string]: string | boolean | undefined;
}

/** Reads an integer flag: `fallback` when absent, a `UsageError` below `least`. */
export type IntFlag = (flag: string, fallback: number, least?: number) => number;

/** Where each broker is looked for when `--url` is not given. */
const DEFAULT_URL = { nats: 'nats://127.0.0.1:4222', redis: 'redis://127.0.0.1:6379' } as const;

/** A name of this process that no other process on the machine has. */
const processName = () => `${hostname()}-${process.pid}`;

const text = (values: FlagValues, flag: string): string | undefined => {
  const value = values[flag];
  return typeof value === 'string' ? value : undefined;
};

/** `route nats|redis`: the router's options. */
export function routeCommand(
  rest: readonly string[],
  values: FlagValues,
  common: CommonOptions,
  int: IntFlag,
): Command {
  const [broker, ...extra] = rest;
  if (broker !== 'nats' && broker !== 'redis')
    throw new UsageError(`route needs a broker: route nats|redis, got ${broker ?? 'nothing'}`);
  if (extra.length > 0)
    throw new UsageError(`route takes no more arguments, got ${extra.join(' ')}`);
  const stream = text(values, 'stream');
  const subject = text(values, 'subject');
  if (stream === undefined) throw new UsageError('route needs --stream');
  if (values.partitions === undefined) throw new UsageError('route needs --partitions');
  if (broker === 'nats' && subject === undefined)
    throw new UsageError('route nats needs --subject');
  return {
    name: 'route',
    broker,
    common,
    graceMillis: int('grace-ms', 10_000),
    router: {
      url: text(values, 'url') ?? DEFAULT_URL[broker],
      stream,
      source: broker === 'nats' ? subject! : stream,
      partitions: int('partitions', 1),
      group: text(values, 'group') ?? text(values, 'durable') ?? 'agent-otel-bridge-router',
      consumer: text(values, 'consumer') ?? processName(),
      ackWaitMillis: int(broker === 'nats' ? 'ack-wait-ms' : 'claim-idle-ms', 30_000),
      leaseMillis: int('lease-ms', 10_000),
      batchSize: 256,
      ...(broker === 'redis' && text(values, 'field') !== undefined
        ? { field: text(values, 'field')! }
        : {}),
      report: () => undefined,
    },
  };
}

/** `nats` and `redis`: the source's, the consumption's and the partitions' options. */
export function brokerCommand(
  name: 'nats' | 'redis',
  rest: readonly string[],
  values: FlagValues,
  common: CommonOptions,
  int: IntFlag,
  env: Readonly<Record<string, string | undefined>> = {},
): Command {
  if (rest.length > 0) throw new UsageError(`${name} takes no arguments, got ${rest.join(' ')}`);
  const stream = text(values, 'stream');
  const subject = text(values, 'subject');
  if (stream === undefined) throw new UsageError(`${name} needs --stream`);
  if (values.workers !== undefined && values.partitions === undefined)
    throw new UsageError(
      `${name} --workers needs --partitions: each worker holds partitions of its own`,
    );
  const partitions: PartitionOptions | undefined =
    values.partitions === undefined
      ? undefined
      : {
          partitions: int('partitions', 1),
          workers: int('workers', 1),
          leaseMillis: int('lease-ms', 10_000),
          instanceId: text(values, 'instance-id') ?? processName(),
          partitionStream: text(values, 'partition-stream') ?? stream,
        };
  const maxPending = int('max-ack-pending', 100_000);
  if (values.field !== undefined && (name !== 'redis' || partitions !== undefined))
    throw new UsageError(
      name === 'redis'
        ? '--field is read where the runtime publishes: give it to route redis (the partitions hold what it routed)'
        : '--field is for redis and route redis',
    );
  const consume: ConsumeOptions = {
    scope: name === 'nats' ? (subject ?? stream) : stream,
    maxPending,
    endOpenRunsOnShutdown: values['end-open-runs-on-shutdown'] === true,
    graceMillis: int('grace-ms', 10_000),
    checkpointEvery: int('checkpoint-every', 1000, 0),
    partitioned: partitions !== undefined,
    allowSharedConsumer: values['allow-shared-consumer'] === true,
    ...(partitions === undefined ? {} : { partitions: partitions.partitions }),
    ...statusEndpoint(values, int, env),
  };
  if (name === 'nats') {
    if (subject === undefined) throw new UsageError('nats needs --subject');
    return {
      name,
      common,
      consume,
      partitions,
      nats: {
        url: text(values, 'url') ?? DEFAULT_URL.nats,
        stream,
        subject,
        durable: text(values, 'durable') ?? 'agent-otel-bridge',
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
    partitions,
    redis: {
      url: text(values, 'url') ?? DEFAULT_URL.redis,
      stream,
      group: text(values, 'group') ?? 'agent-otel-bridge',
      consumer: text(values, 'consumer') ?? hostname(),
      claimIdleMillis: int('claim-idle-ms', 60_000),
      batchSize: 256,
      ...(text(values, 'field') === undefined ? {} : { field: text(values, 'field')! }),
    },
  };
}

/** `--status-port` (with `--host`, default loopback, and the token of `--token-env`). */
function statusEndpoint(
  values: FlagValues,
  int: IntFlag,
  env: Readonly<Record<string, string | undefined>>,
): Pick<ConsumeOptions, 'status'> {
  if (values['status-port'] === undefined) return {};
  const host = text(values, 'host') ?? '127.0.0.1';
  const tokenEnv = text(values, 'token-env') ?? 'AGENT_OTEL_BRIDGE_HTTP_TOKEN';
  const token = env[tokenEnv]?.trim() || undefined;
  if (values['token-env'] !== undefined && token === undefined)
    throw new UsageError(`--token-env ${tokenEnv}: that variable is not set`);
  const loopback = host === 'localhost' || host === '::1' || host.startsWith('127.');
  if (!loopback && token === undefined && values['allow-unauthenticated'] !== true)
    throw new UsageError(
      `refusing to serve /runs on ${host} without a token: set AGENT_OTEL_BRIDGE_HTTP_TOKEN (or --token-env), or pass --allow-unauthenticated`,
    );
  const port = int('status-port', 0, 0);
  if (port > 65535) throw new UsageError(`--status-port must be 0–65535, got ${port}`);
  return { status: { host, port, token } };
}
