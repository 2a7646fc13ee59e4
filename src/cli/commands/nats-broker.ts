// The `nats` command's source and checkpoints (the NATS client is an optional package: this module
// is loaded only by the `nats` command, once it is known installed).
import type { CheckpointStore } from '../../checkpoints/checkpoint-store.js';
import { createNatsCheckpointStore } from '../../checkpoints/nats-checkpoint-store.js';
import { createNatsLeaseStore } from '../../partitions/nats-lease-store.js';
import { createPartitionedSource } from '../../partitions/partitioned-source.js';
import { routedSubject } from '../../partitions/routed-marks.js';
import type { ListenForMarks } from '../../partitions/routed-marks.js';
import type { BrokerSource } from '../../sources/broker-source.js';
import { connectNats } from '../../sources/nats-connection.js';
import { createNatsSource } from '../../sources/nats-source.js';
import type { Command } from '../command.js';
import { CHECKPOINT_TTL_MILLIS, sharedConsumerMessage } from './broker-policy.js';
import type { ConsumerHooks } from './consume.js';

type NatsCommand = Extract<Command, { name: 'nats' }>;

/**
 * The stream a `nats` command reads: the whole subject, or with `--partitions` the partitions
 * this instance holds leases on (`<subject>.<p>` with durable `<durable>-p<p>`).
 */
export function natsSource(
  command: NatsCommand,
  hooks: ConsumerHooks,
  report: (message: string) => void,
): BrokerSource {
  const partitioned = command.partitions;
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
        connection: await connectNats(nats.url),
        bucket: `${nats.durable}-leases`.replace(/[^A-Za-z0-9_-]/g, '_'),
        instanceId: partitioned.instanceId,
        leaseMillis: partitioned.leaseMillis,
      }),
    partitionSource: (p, drained) =>
      createNatsSource({
        ...nats,
        stream: partitioned.partitionStream,
        subject: `${nats.subject}.${p}`,
        durable: `${nats.durable}-p${p}`,
        drained: (_at, sentAt) => drained(sentAt),
      }),
    beforeTake: (p) => hooks.restore(p),
    beforeRelease: (p) => hooks.settle(p),
    dropped: (p) => hooks.drop(p),
    report,
    meter: hooks.meter,
  });
}

/** With `--partitions`: the routers' drain marks, on their own connection. */
export function natsRoutedMarks(command: NatsCommand): ListenForMarks | undefined {
  if (command.partitions === undefined) return undefined;
  const { url, subject } = command.nats;
  return async (onMark) => {
    const nc = await connectNats(url);
    nc.subscribe(routedSubject(subject), {
      callback: (error, message) => {
        if (error === null) onMark(message.string());
      },
    });
    return () => nc.drain().catch(() => undefined);
  };
}

/** The JetStream KV bucket `<durable>-runs`, where a `nats` command keeps its runs' checkpoints. */
export function natsCheckpointStore(command: NatsCommand): () => Promise<CheckpointStore> {
  const { url, durable } = command.nats;
  return async () =>
    createNatsCheckpointStore({
      connection: await connectNats(url),
      bucket: `${durable}-runs`.replace(/[^A-Za-z0-9_-]/g, '_'),
      ttlMillis: CHECKPOINT_TTL_MILLIS,
    });
}
