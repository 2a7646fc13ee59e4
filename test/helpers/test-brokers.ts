// A stream of its own on each real broker of this machine, for a test that runs the bridge on it:
// how to publish to it, how many of its messages wait for acknowledgement, the command that
// consumes it (group or durable `bridge`), and its removal.
import { randomUUID } from 'node:crypto';
import {
  deleteNatsStream,
  deleteRedisKey,
  natsConsumerArgs,
  natsConsumerInfo,
  publishToNats,
  publishToRedis,
  REDIS_URL,
  redisPending,
} from './brokers.js';

export interface TestBroker {
  readonly name: 'nats' | 'redis';
  publish(lines: readonly string[]): Promise<void>;
  /** Messages delivered and not acknowledged yet. */
  pending(): Promise<number>;
  /** The command that consumes the stream, `extraArgs` after it. */
  args(): string[];
  cleanup(): Promise<void>;
}

/** A NATS JetStream stream `<prefix>_<id>` on subject `agents.<id>.events`. */
export function natsTestBroker(prefix: string, extraArgs: readonly string[] = []): TestBroker {
  const id = randomUUID().slice(0, 8);
  const stream = `${prefix}_${id}`;
  const subject = `agents.${id}.events`;
  return {
    name: 'nats',
    publish: (l) => publishToNats(stream, subject, l),
    pending: async () => (await natsConsumerInfo(stream, 'bridge')).numAckPending,
    args: () => [...natsConsumerArgs(stream, subject, 'bridge'), ...extraArgs],
    cleanup: () => deleteNatsStream(stream),
  };
}

/** A Redis stream `<prefix>:<id>`. */
export function redisTestBroker(prefix: string, extraArgs: readonly string[] = []): TestBroker {
  const key = `${prefix}:${randomUUID().slice(0, 8)}`;
  return {
    name: 'redis',
    publish: (l) => publishToRedis(key, l),
    pending: () => redisPending(key, 'bridge'),
    args: () => ['redis', '--url', REDIS_URL, '--stream', key, '--group', 'bridge', ...extraArgs],
    cleanup: () => deleteRedisKey(key),
  };
}
