// Publishing to the real brokers on this machine exactly as behest does.
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { createClient } from 'redis';

export const NATS_URL = 'nats://127.0.0.1:4222';
export const REDIS_URL = 'redis://127.0.0.1:6379';

/** `nats` command arguments that consume `subject` of `stream` through `durable`. */
export function natsConsumerArgs(stream: string, subject: string, durable: string): string[] {
  return [
    'nats',
    '--url',
    NATS_URL,
    '--stream',
    stream,
    '--subject',
    subject,
    '--durable',
    durable,
  ];
}

/** Creates a JetStream stream and publishes each line as behest's NatsEventPublisher does. */
export async function publishToNats(
  stream: string,
  subject: string,
  lines: readonly string[],
  url = NATS_URL,
  /** Publishes awaited together (in order on one connection). */
  inFlight = 1,
): Promise<void> {
  const nc = await connect({ servers: url });
  try {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: stream, subjects: [subject] });
    const js = jetstream(nc);
    for (let i = 0; i < lines.length; i += inFlight)
      await Promise.all(lines.slice(i, i + inFlight).map((line) => js.publish(subject, line)));
  } finally {
    await nc.drain();
  }
}

export async function natsConsumerInfo(
  stream: string,
  durable: string,
  url = NATS_URL,
): Promise<{ numAckPending: number; delivered: number; ackFloor: number }> {
  const nc = await connect({ servers: url });
  try {
    const info = await (await jetstreamManager(nc)).consumers.info(stream, durable);
    return {
      numAckPending: info.num_ack_pending,
      delivered: info.delivered.stream_seq,
      ackFloor: info.ack_floor.stream_seq,
    };
  } finally {
    await nc.drain();
  }
}

export async function deleteNatsStream(stream: string): Promise<void> {
  const nc = await connect({ servers: NATS_URL });
  try {
    await (await jetstreamManager(nc)).streams.delete(stream).catch(() => undefined);
  } finally {
    await nc.drain();
  }
}

/** `XADD <key> * event <json>` per line, as behest's RedisStreamsPublisher does. */
export async function publishToRedis(
  key: string,
  lines: readonly string[],
  url = REDIS_URL,
  /** Entries added together (in order on one connection). */
  inFlight = 1,
): Promise<void> {
  const client = createClient({ url });
  await client.connect();
  try {
    for (let i = 0; i < lines.length; i += inFlight)
      await Promise.all(
        lines.slice(i, i + inFlight).map((line) => client.xAdd(key, '*', { event: line })),
      );
  } finally {
    client.destroy();
  }
}

export async function redisPending(key: string, group: string, url = REDIS_URL): Promise<number> {
  const client = createClient({ url });
  await client.connect();
  try {
    const summary = await client.xPending(key, group);
    return Number(summary.pending);
  } finally {
    client.destroy();
  }
}

export async function deleteRedisKey(key: string): Promise<void> {
  const client = createClient({ url: REDIS_URL });
  await client.connect();
  try {
    await client.del(key);
  } finally {
    client.destroy();
  }
}

/** The names of the JetStream streams on the server (a KV bucket is the stream `KV_<bucket>`). */
export async function natsStreamNames(url = NATS_URL): Promise<string[]> {
  const nc = await connect({ servers: url });
  try {
    const names: string[] = [];
    for await (const name of (await jetstreamManager(nc)).streams.names()) names.push(name);
    return names;
  } finally {
    await nc.drain();
  }
}
