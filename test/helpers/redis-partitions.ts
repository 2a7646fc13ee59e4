// A partitioned source over real Redis streams and leases, with no checkpoints: what the
// in-process partition tests start as one instance of a deployment.
import type { Meter } from '@opentelemetry/api';
import { createPartitionedSource } from '../../src/partitions/partitioned-source.js';
import { createRedisLeaseStore } from '../../src/partitions/redis-lease-store.js';
import type { BrokerSource } from '../../src/sources/broker-source.js';
import { createRedisSource } from '../../src/sources/redis-source.js';
import { REDIS_URL } from './brokers.js';

export interface RedisInstanceOptions {
  /** Key prefix: streams `<key>:<p>`, leases under `<key>:bridge`, consumer group `bridge`. */
  readonly key: string;
  readonly id: string;
  readonly partitions: number;
  readonly leaseMillis: number;
  readonly batchSize: number;
  readonly report: (message: string) => void;
  readonly meter?: Meter;
  /** Told after partition `p`'s source said it read everything stored before `sentAt`. */
  readonly drained?: (p: number, sentAt: number) => void;
}

export function redisPartitionInstance(options: RedisInstanceOptions): BrokerSource {
  const { key, id, leaseMillis } = options;
  return createPartitionedSource({
    ...(options.meter === undefined ? {} : { meter: options.meter }),
    partitions: options.partitions,
    leaseMillis,
    description: `test ${id}`,
    keepAliveMillis: undefined,
    store: () =>
      createRedisLeaseStore({
        url: REDIS_URL,
        prefix: `${key}:bridge`,
        instanceId: id,
        leaseMillis,
      }),
    partitionSource: (p, drained) =>
      createRedisSource({
        url: REDIS_URL,
        stream: `${key}:${p}`,
        group: 'bridge',
        consumer: id,
        claimIdleMillis: 0,
        batchSize: options.batchSize,
        drained: (sentAt) => {
          drained(sentAt);
          options.drained?.(p, sentAt);
        },
      }),
    beforeTake: () => Promise.resolve(),
    beforeRelease: () => Promise.resolve(),
    dropped: () => undefined,
    report: options.report,
  });
}
