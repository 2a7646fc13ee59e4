import { connectRedis } from '../sources/redis-connection.js';
import type { CheckpointStore } from './checkpoint-store.js';
import { keyOfRun } from './checkpoint-store.js';
import { decodeCheckpoint, encodeCheckpoint } from './run-checkpoint.js';
import type { RunCheckpoint } from './run-checkpoint.js';

/** Checkpoints as Redis keys `<prefix>:run:<scope>:<run>`, each expiring `ttlMillis` after its save. */
export async function createRedisCheckpointStore(options: {
  readonly url: string;
  readonly prefix: string;
  readonly ttlMillis: number;
}): Promise<CheckpointStore> {
  const client = await connectRedis(options.url);
  const keyOf = (scope: string, runId: string) =>
    `${options.prefix}:run:${scope}:${keyOfRun(runId)}`;
  return {
    async save(scope, checkpoint) {
      await client.set(keyOf(scope, checkpoint.runId), encodeCheckpoint(checkpoint), {
        PX: options.ttlMillis,
      });
    },
    async load(scope) {
      const checkpoints: RunCheckpoint[] = [];
      const unreadable: { key: string; problem: string }[] = [];
      const match = `${`${options.prefix}:run:${scope}:`.replace(/[*?[\]\\]/g, '\\$&')}*`;
      for await (const keys of client.scanIterator({ MATCH: match, COUNT: 1000 })) {
        for (const key of keys) {
          const text = await client.get(key);
          if (text === null) continue;
          try {
            checkpoints.push(decodeCheckpoint(text));
          } catch (error) {
            unreadable.push({
              key,
              problem: error instanceof Error ? error.message : String(error),
            });
          }
        }
      }
      return { checkpoints, unreadable };
    },
    close() {
      client.destroy();
      return Promise.resolve();
    },
  };
}
