import { randomUUID } from 'node:crypto';
import { jetstream } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import type { CheckpointStore } from './checkpoint-store.js';
import { keyOfRun } from './checkpoint-store.js';
import { decodeCheckpoint, encodeCheckpoint } from './run-checkpoint.js';
import type { RunCheckpoint } from './run-checkpoint.js';

/** What a message carries beside its value (subject, headers): kept free below the server's limit. */
const MESSAGE_OVERHEAD_BYTES = 16 * 1024;

/** The value at a run's key when its checkpoint is stored in chunks. */
interface Manifest {
  readonly chunked: 1;
  /** The chunks' generation: a save writes new chunks, then switches the manifest to them. */
  readonly generation: string;
  readonly chunks: number;
  readonly bytes: number;
}

const MANIFEST_PREFIX = '{"chunked":1,';

/**
 * Checkpoints in a JetStream key-value bucket (`<scope>.<run>`), the bucket's TTL their lifetime.
 * A checkpoint larger than what one message may carry (the server's `max_payload`, 1 MiB by
 * default) is stored in chunks (`<scope>.<run>.<generation>.<i>`) and the run's key holds a
 * manifest naming them, written last: a reader sees the previous checkpoint or the new one whole,
 * never a mix. The previous generation's chunks are deleted after the switch.
 */
export async function createNatsCheckpointStore(options: {
  readonly connection: NatsConnection;
  readonly bucket: string;
  readonly ttlMillis: number;
  /** The most bytes one value may hold; default: the server's max_payload less an overhead. */
  readonly chunkBytes?: number;
}): Promise<CheckpointStore> {
  const kv = await new Kvm(jetstream(options.connection)).create(options.bucket, {
    ttl: options.ttlMillis,
    history: 1,
  });
  const maxPayload = options.connection.info?.max_payload ?? 1024 * 1024;
  const chunkBytes = options.chunkBytes ?? Math.max(1024, maxPayload - MESSAGE_OVERHEAD_BYTES);
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  /** Per run key: the chunk generation this process last wrote (deleted at the next save). */
  const generations = new Map<string, Manifest>();

  const deleteChunks = async (key: string, manifest: Manifest) => {
    for (let i = 0; i < manifest.chunks; i += 1)
      await kv.delete(`${key}.${manifest.generation}.${i}`).catch(() => undefined);
  };

  return {
    async save(scope, checkpoint) {
      const key = `${scope}.${keyOfRun(checkpoint.runId)}`;
      const bytes = encoder.encode(encodeCheckpoint(checkpoint));
      const previous = generations.get(key);
      if (bytes.length <= chunkBytes) {
        await kv.put(key, bytes);
        generations.delete(key);
      } else {
        const manifest: Manifest = {
          chunked: 1,
          generation: randomUUID().replaceAll('-', ''),
          chunks: Math.ceil(bytes.length / chunkBytes),
          bytes: bytes.length,
        };
        for (let i = 0; i < manifest.chunks; i += 1)
          await kv.put(
            `${key}.${manifest.generation}.${i}`,
            bytes.subarray(i * chunkBytes, (i + 1) * chunkBytes),
          );
        await kv.put(key, JSON.stringify(manifest));
        generations.set(key, manifest);
      }
      if (previous !== undefined) await deleteChunks(key, previous);
    },
    async load(scope) {
      const checkpoints: RunCheckpoint[] = [];
      const unreadable: { key: string; problem: string }[] = [];
      const keys: string[] = [];
      // `*` is one token: chunks (`<scope>.<run>.<generation>.<i>`) are not listed.
      for await (const key of await kv.keys(`${scope}.*`)) if (key !== '') keys.push(key);
      for (const key of keys) {
        const entry = await kv.get(key);
        if (entry === null || entry.operation !== 'PUT') continue;
        try {
          const text = decoder.decode(entry.value);
          if (!text.startsWith(MANIFEST_PREFIX)) {
            checkpoints.push(decodeCheckpoint(text));
            continue;
          }
          const chunked = await readChunks(kv, key, text);
          checkpoints.push(decodeCheckpoint(chunked.text));
          // Its chunks are this process's to delete at its next save.
          generations.set(key, chunked.manifest);
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

/** A chunked checkpoint's text, from its manifest; throws naming what is missing or wrong. */
async function readChunks(
  kv: KV,
  key: string,
  manifestText: string,
): Promise<{ text: string; manifest: Manifest }> {
  const manifest = JSON.parse(manifestText) as Partial<Manifest>;
  const { generation, chunks, bytes } = manifest;
  if (typeof generation !== 'string' || !/^[0-9a-f]{32}$/.test(generation))
    throw new Error('chunked checkpoint: generation must be 32 hex digits');
  if (typeof chunks !== 'number' || !Number.isSafeInteger(chunks) || chunks < 1)
    throw new Error('chunked checkpoint: chunks must be a whole number ≥ 1');
  if (typeof bytes !== 'number' || !Number.isSafeInteger(bytes) || bytes < 1)
    throw new Error('chunked checkpoint: bytes must be a whole number ≥ 1');
  const parts: Uint8Array[] = [];
  for (let i = 0; i < chunks; i += 1) {
    const entry = await kv.get(`${key}.${generation}.${i}`);
    if (entry === null || entry.operation !== 'PUT')
      throw new Error(`chunked checkpoint: chunk ${i + 1} of ${chunks} is missing`);
    parts.push(entry.value);
  }
  const whole = Buffer.concat(parts);
  if (whole.length !== bytes)
    throw new Error(`chunked checkpoint: ${whole.length} bytes where the manifest says ${bytes}`);
  return { text: whole.toString('utf8'), manifest: { chunked: 1, generation, chunks, bytes } };
}
