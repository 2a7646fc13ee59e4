// The broker a `nats` or `redis` command reads, loaded with its client only when that command
// runs: each client is an optional package (src/optional-packages.ts), and a missing one is said
// with what to install.
import type { CheckpointStore } from '../../checkpoints/checkpoint-store.js';
import { importWithFeature } from '../../optional-packages.js';
import type { ListenForMarks } from '../../partitions/routed-marks.js';
import type { BrokerSource } from '../../sources/broker-source.js';
import type { Command } from '../command.js';
import type { ConsumerHooks } from './consume.js';

export interface Broker {
  /** The source the command reads (the whole stream, or its partitions). */
  readonly source: (hooks: ConsumerHooks, report: (message: string) => void) => BrokerSource;
  /** Where the command keeps its runs' checkpoints. */
  readonly checkpoints: () => Promise<CheckpointStore>;
  /** With `--partitions`: the routers' drain marks. */
  readonly routedMarks: ListenForMarks | undefined;
}

/** The command's broker, its client loaded (a usage error naming the packages when missing). */
export async function loadBroker(
  command: Extract<Command, { name: 'nats' | 'redis' }>,
): Promise<Broker> {
  if (command.name === 'nats') {
    const { natsCheckpointStore, natsRoutedMarks, natsSource } = await importWithFeature(
      'nats',
      () => import('./nats-broker.js'),
    );
    return {
      source: (hooks, report) => natsSource(command, hooks, report),
      checkpoints: natsCheckpointStore(command),
      routedMarks: natsRoutedMarks(command),
    };
  }
  const { redisCheckpointStore, redisRoutedMarks, redisSource } = await importWithFeature(
    'redis',
    () => import('./redis-broker.js'),
  );
  return {
    source: (hooks, report) => redisSource(command, hooks, report),
    checkpoints: redisCheckpointStore(command),
    routedMarks: redisRoutedMarks(command),
  };
}
