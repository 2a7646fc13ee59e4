import { jetstream } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import type { CheckpointStore } from './checkpoint-store.js';
import { keyOfRun } from './checkpoint-store.js';
import { decodeCheckpoint, encodeCheckpoint } from './run-checkpoint.js';
import type { RunCheckpoint } from './run-checkpoint.js';

/** Checkpoints in a JetStream key-value bucket (`<scope>.<run>`), the bucket's TTL their lifetime. */
export async function createNatsCheckpointStore(options: {
  readonly connection: NatsConnection;
  readonly bucket: string;
  readonly ttlMillis: number;
}): Promise<CheckpointStore> {
  const kv = await new Kvm(jetstream(options.connection)).create(options.bucket, {
    ttl: options.ttlMillis,
    history: 1,
  });
  const decoder = new TextDecoder();
  return {
    async save(scope, checkpoint) {
      await kv.put(`${scope}.${keyOfRun(checkpoint.runId)}`, encodeCheckpoint(checkpoint));
    },
    async load(scope) {
      const checkpoints: RunCheckpoint[] = [];
      const unreadable: { key: string; problem: string }[] = [];
      const keys: string[] = [];
      for await (const key of await kv.keys(`${scope}.*`)) if (key !== '') keys.push(key);
      for (const key of keys) {
        const entry = await kv.get(key);
        if (entry === null || entry.operation !== 'PUT') continue;
        try {
          checkpoints.push(decodeCheckpoint(decoder.decode(entry.value)));
        } catch (error) {
          unreadable.push({ key, problem: error instanceof Error ? error.message : String(error) });
        }
      }
      return { checkpoints, unreadable };
    },
    async close() {
      await options.connection.drain().catch(() => undefined);
    },
  };
}
