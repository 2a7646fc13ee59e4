import { connect } from '@nats-io/transport-node';
import type { CheckpointStore } from '../../checkpoints/checkpoint-store.js';
import { createNatsCheckpointStore } from '../../checkpoints/nats-checkpoint-store.js';
import { createRedisCheckpointStore } from '../../checkpoints/redis-checkpoint-store.js';
import { createNatsLeaseStore } from '../../partitions/nats-lease-store.js';
import { createPartitionedSource } from '../../partitions/partitioned-source.js';
import { createRedisLeaseStore } from '../../partitions/redis-lease-store.js';
import type { BrokerSource } from '../../sources/broker-source.js';
import { createNatsSource } from '../../sources/nats-source.js';
import { createRedisSource } from '../../sources/redis-source.js';
import type { Command } from '../command.js';
import type { ConsumerHooks } from './consume.js';

type BrokerCommand = Extract<Command, { name: 'nats' | 'redis' }>;

/**
 * The source a `nats` or `redis` command reads: the whole stream, or with `--partitions` the
 * partitions this instance holds leases on (`<subject>.<p>` with durable `<durable>-p<p>`;
 * `<key>:<p>` with the same group, claiming what a previous owner left).
 */
export function brokerSource(
  command: BrokerCommand,
  hooks: ConsumerHooks,
  report: (message: string) => void,
): BrokerSource {
  const partitioned = command.partitions;
  if (command.name === 'nats') {
    const nats = { ...command.nats, report };
    if (partitioned === undefined)
      return createNatsSource({
        ...nats,
        refuseShared: command.consume.allowSharedConsumer
          ? undefined
          : (other) =>
              sharedConsumerMessage(
                other,
                `durable ${nats.durable}`,
                `route nats --url ${nats.url} --stream ${nats.stream} --subject ${nats.subject} --partitions 12`,
                `nats --url ${nats.url} --stream ${nats.stream} --subject ${nats.subject} --partition-stream <STREAM of ${nats.subject}.*> --durable ${nats.durable} --partitions 12`,
              ),
      });
    return createPartitionedSource({
      partitions: partitioned.partitions,
      leaseMillis: partitioned.leaseMillis,
      description: `${nats.url} stream ${partitioned.partitionStream} subjects ${nats.subject}.<0–${partitioned.partitions - 1}> (instance ${partitioned.instanceId})`,
      keepAliveMillis: Math.max(500, Math.floor(nats.ackWaitMillis / 3)),
      store: async () =>
        createNatsLeaseStore({
          connection: await connect({ servers: nats.url, maxReconnectAttempts: -1 }),
          bucket: `${nats.durable}-leases`.replace(/[^A-Za-z0-9_-]/g, '_'),
          instanceId: partitioned.instanceId,
          leaseMillis: partitioned.leaseMillis,
        }),
      partitionSource: (p) =>
        createNatsSource({
          ...nats,
          stream: partitioned.partitionStream,
          subject: `${nats.subject}.${p}`,
          durable: `${nats.durable}-p${p}`,
        }),
      beforeTake: (p) => hooks.restore(p),
      beforeRelease: (p) => hooks.settle(p),
      dropped: (p) => hooks.drop(p),
      report,
      meter: hooks.meter,
    });
  }
  const redis = { ...command.redis, report };
  if (partitioned === undefined)
    return createRedisSource({
      ...redis,
      unreadable: (message) => hooks.unreadable(message),
      refuseShared: command.consume.allowSharedConsumer
        ? undefined
        : (other) =>
            sharedConsumerMessage(
              other,
              `group ${redis.group}`,
              `route redis --url ${redis.url} --stream ${redis.stream} --partitions 12`,
              `redis --url ${redis.url} --stream ${redis.stream} --group ${redis.group} --partitions 12`,
            ),
    });
  return createPartitionedSource({
    partitions: partitioned.partitions,
    leaseMillis: partitioned.leaseMillis,
    description: `${redis.url} streams ${redis.stream}:<0–${partitioned.partitions - 1}> (group ${redis.group}, instance ${partitioned.instanceId})`,
    keepAliveMillis: undefined,
    store: () =>
      createRedisLeaseStore({
        url: redis.url,
        prefix: `${redis.stream}:${redis.group}`,
        instanceId: partitioned.instanceId,
        leaseMillis: partitioned.leaseMillis,
      }),
    partitionSource: (p) =>
      createRedisSource({
        ...redis,
        stream: `${redis.stream}:${p}`,
        consumer: partitioned.instanceId,
        // The lease says the previous owner is gone: everything it left pending is ours.
        claimIdleMillis: 0,
        // The router writes the event as `event`, whatever the runtime's field.
        field: 'event',
        unreadable: (message) => hooks.unreadable(message),
      }),
    beforeTake: (p) => hooks.restore(p),
    beforeRelease: (p) => hooks.settle(p),
    dropped: (p) => hooks.drop(p),
    report,
    meter: hooks.meter,
  });
}

/** Why a second consumer on one durable or group is refused, and what to run instead. */
function sharedConsumerMessage(other: string, shared: string, route: string, instance: string) {
  return [
    `another consumer is reading this stream now (${other}): instances sharing one ${shared} split every run between them, each exporting part of it.`,
    'To scale out, route the stream by run and share its partitions (docs/scaling-out.md):',
    `  agent-otel-bridge ${route}`,
    `  agent-otel-bridge ${instance}   # on each instance`,
    'To start anyway: --allow-shared-consumer',
  ].join('\n');
}

/** Open runs' checkpoints and finished markers live this long after their last save. */
const CHECKPOINT_TTL_MILLIS = 24 * 60 * 60 * 1000;

/**
 * Where a `nats` or `redis` command keeps its runs' checkpoints: the JetStream KV bucket
 * `<durable>-runs`; Redis keys `<stream>:<group>:run:<scope>:<run>`.
 */
export function brokerCheckpointStore(command: BrokerCommand): () => Promise<CheckpointStore> {
  if (command.name === 'nats') {
    const { url, durable } = command.nats;
    return async () =>
      createNatsCheckpointStore({
        connection: await connect({ servers: url, maxReconnectAttempts: -1 }),
        bucket: `${durable}-runs`.replace(/[^A-Za-z0-9_-]/g, '_'),
        ttlMillis: CHECKPOINT_TTL_MILLIS,
      });
  }
  const { url, stream, group } = command.redis;
  return () =>
    createRedisCheckpointStore({
      url,
      prefix: `${stream}:${group}`,
      ttlMillis: CHECKPOINT_TTL_MILLIS,
    });
}
