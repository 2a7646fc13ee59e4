// The `redis` command's source and checkpoints (the Redis client is an optional package: this
// module is loaded only by the `redis` command, once it is known installed).
import type { CheckpointStore } from '../../checkpoints/checkpoint-store.js';
import { createRedisCheckpointStore } from '../../checkpoints/redis-checkpoint-store.js';
import { createPartitionedSource } from '../../partitions/partitioned-source.js';
import { createRedisLeaseStore } from '../../partitions/redis-lease-store.js';
import { routedChannel } from '../../partitions/routed-marks.js';
import type { ListenForMarks } from '../../partitions/routed-marks.js';
import type { BrokerSource } from '../../sources/broker-source.js';
import { connectRedis } from '../../sources/redis-connection.js';
import { createRedisSource } from '../../sources/redis-source.js';
import type { Command } from '../command.js';
import { CHECKPOINT_TTL_MILLIS, sharedConsumerMessage } from './broker-policy.js';
import type { ConsumerHooks } from './consume.js';

type RedisCommand = Extract<Command, { name: 'redis' }>;

/**
 * The stream a `redis` command reads: the whole key, or with `--partitions` the partitions this
 * instance holds leases on (`<key>:<p>` with the same group, claiming what a previous owner left).
 */
export function redisSource(
  command: RedisCommand,
  hooks: ConsumerHooks,
  report: (message: string) => void,
): BrokerSource {
  const partitioned = command.partitions;
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
    partitionSource: (p, drained) =>
      createRedisSource({
        ...redis,
        stream: `${redis.stream}:${p}`,
        consumer: partitioned.instanceId,
        // The lease says the previous owner is gone: everything it left pending is ours.
        claimIdleMillis: 0,
        // The router writes the event as `event`, whatever the runtime's field.
        field: 'event',
        unreadable: (message) => hooks.unreadable(message),
        drained,
      }),
    beforeTake: (p) => hooks.restore(p),
    beforeRelease: (p) => hooks.settle(p),
    dropped: (p) => hooks.drop(p),
    report,
    meter: hooks.meter,
  });
}

/** With `--partitions`: the routers' drain marks, on their own connection. */
export function redisRoutedMarks(command: RedisCommand): ListenForMarks | undefined {
  if (command.partitions === undefined) return undefined;
  const { url, stream } = command.redis;
  return async (onMark) => {
    const client = await connectRedis(url);
    await client.subscribe(routedChannel(stream), onMark);
    return async () => {
      client.destroy();
      await Promise.resolve();
    };
  };
}

/** Redis keys `<stream>:<group>:run:<scope>:<run>`, where a `redis` command keeps checkpoints. */
export function redisCheckpointStore(command: RedisCommand): () => Promise<CheckpointStore> {
  const { url, stream, group } = command.redis;
  return () =>
    createRedisCheckpointStore({
      url,
      prefix: `${stream}:${group}`,
      ttlMillis: CHECKPOINT_TTL_MILLIS,
    });
}
