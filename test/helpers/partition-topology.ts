// The documented scale-out deployment (docs/scaling-out.md) on the real NATS JetStream and Redis
// of this machine: the runtime's single stream, routers republishing it by partition, instances
// sharing the partitions through leases. Each topology names its own streams and keys.
import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { createClient } from 'redis';
import { NATS_URL, publishToNats, publishToRedis, REDIS_URL } from './brokers.js';
import type { OtlpSpan } from './otlp-protobuf.js';
import { describeMissing, wireFingerprint } from './wire-spans.js';

export interface TopologyOptions {
  readonly partitions: number;
  readonly leaseMillis: number;
  /** NATS ack wait; Redis: the routers' claim-idle time. */
  readonly ackWaitMillis: number;
}

export interface Topology {
  readonly broker: 'nats' | 'redis';
  publish(lines: readonly string[]): Promise<void>;
  /** CLI arguments of router `n`. */
  router(n: number): string[];
  /** CLI arguments of instance `n` (instance id `instance-<n>`). */
  instance(n: number): string[];
  /** Messages not yet acknowledged, by the routers and by the instances, over every partition. */
  unacknowledged(): Promise<{ routers: number; partitions: number; byPartition: number[] }>;
  cleanup(): Promise<void>;
}

export function natsTopology(options: TopologyOptions): Topology {
  const id = randomUUID().slice(0, 8);
  const stream = `AOB_PART_${id}`;
  const partitionStream = `AOB_PARTS_${id}`;
  const subject = `parts.${id}.events`;
  const durable = `bridge-${id}`;
  const routerDurable = `router-${id}`;
  let created = false;
  return {
    broker: 'nats',
    async publish(lines) {
      if (!created) {
        created = true;
        const nc = await connect({ servers: NATS_URL });
        await (
          await jetstreamManager(nc)
        ).streams.add({ name: partitionStream, subjects: [`${subject}.*`] });
        await nc.drain();
        await publishToNats(stream, subject, lines);
        return;
      }
      const nc = await connect({ servers: NATS_URL });
      const js = jetstream(nc);
      for (const line of lines) await js.publish(subject, line);
      await nc.drain();
    },
    router: (n) => [
      'route',
      'nats',
      '--url',
      NATS_URL,
      '--stream',
      stream,
      '--subject',
      subject,
      '--partitions',
      String(options.partitions),
      '--durable',
      routerDurable,
      '--ack-wait-ms',
      String(options.ackWaitMillis),
      '--lease-ms',
      String(options.leaseMillis),
      '--consumer',
      `router-${n}`,
    ],
    instance: (n) => [
      'nats',
      '--url',
      NATS_URL,
      '--stream',
      stream,
      '--subject',
      subject,
      '--partition-stream',
      partitionStream,
      '--durable',
      durable,
      '--ack-wait-ms',
      String(options.ackWaitMillis),
      '--partitions',
      String(options.partitions),
      '--lease-ms',
      String(options.leaseMillis),
      '--instance-id',
      `instance-${n}`,
    ],
    async unacknowledged() {
      const nc = await connect({ servers: NATS_URL });
      try {
        const jsm = await jetstreamManager(nc);
        const left = async (name: string, consumer: string) => {
          const info = await jsm.consumers.info(name, consumer).catch(() => undefined);
          // A partition nobody consumed yet holds all of its messages.
          if (info === undefined) {
            const streamInfo = await jsm.streams.info(name, {
              subjects_filter: `${subject}.*`,
            });
            const p = consumer.slice(`${durable}-p`.length);
            return streamInfo.state.subjects?.[`${subject}.${p}`] ?? 0;
          }
          return info.num_ack_pending + info.num_pending;
        };
        const byPartition: number[] = [];
        for (let p = 0; p < options.partitions; p += 1)
          byPartition.push(await left(partitionStream, `${durable}-p${p}`));
        const partitions = byPartition.reduce((a, b) => a + b, 0);
        return { routers: await left(stream, routerDurable), partitions, byPartition };
      } finally {
        await nc.drain();
      }
    },
    async cleanup() {
      const nc = await connect({ servers: NATS_URL });
      const jsm = await jetstreamManager(nc);
      for (const name of [stream, partitionStream, `KV_${durable}-leases`, `KV_${durable}-runs`])
        await jsm.streams.delete(name).catch(() => undefined);
      await nc.drain();
    },
  };
}

export function redisTopology(options: TopologyOptions): Topology {
  const key = `aob:parts:${randomUUID().slice(0, 8)}`;
  const routerGroup = 'agent-otel-bridge-router';
  return {
    broker: 'redis',
    publish: (lines) => publishToRedis(key, lines),
    router: (n) => [
      'route',
      'redis',
      '--url',
      REDIS_URL,
      '--stream',
      key,
      '--partitions',
      String(options.partitions),
      '--consumer',
      `router-${n}`,
      '--claim-idle-ms',
      String(options.ackWaitMillis),
    ],
    instance: (n) => [
      'redis',
      '--url',
      REDIS_URL,
      '--stream',
      key,
      '--group',
      'bridge',
      '--partitions',
      String(options.partitions),
      '--lease-ms',
      String(options.leaseMillis),
      '--instance-id',
      `instance-${n}`,
    ],
    async unacknowledged() {
      const client = createClient({ url: REDIS_URL });
      await client.connect();
      try {
        // Pending (delivered, not acknowledged) and lag (not delivered) of a stream's group.
        const left = async (stream: string, group: string) => {
          const groups = await client.xInfoGroups(stream).catch(() => undefined);
          const info = groups?.find((g) => g.name === group);
          if (info === undefined) return client.xLen(stream).catch(() => 0);
          return Number(info.pending) + Number(info.lag ?? 0);
        };
        const byPartition: number[] = [];
        for (let p = 0; p < options.partitions; p += 1)
          byPartition.push(await left(`${key}:${p}`, 'bridge'));
        const partitions = byPartition.reduce((a, b) => a + b, 0);
        return { routers: await left(key, routerGroup), partitions, byPartition };
      } finally {
        client.destroy();
      }
    },
    async cleanup() {
      const client = createClient({ url: REDIS_URL });
      await client.connect();
      for await (const keys of client.scanIterator({ MATCH: `${key}*`, COUNT: 1000 }))
        if (keys.length > 0) await client.del(keys);
      client.destroy();
    },
  };
}

/**
 * Waits for every expected span and tells a lost run from a slow one: once the routers and the
 * partitions have held nothing unacknowledged for `settledMillis` (longer than the reorder window
 * and the grace period) while spans are still missing, nothing more will come, and it fails at
 * once saying which; otherwise it fails after `timeoutMillis` saying what is still held.
 */
export async function waitForEverySpan(
  topology: Topology,
  spans: readonly OtlpSpan[],
  expected: ReadonlySet<string>,
  timeoutMillis: number,
  what: string,
  settledMillis = 10_000,
): Promise<void> {
  const until = Date.now() + timeoutMillis;
  let settledSince: number | undefined;
  let held = { routers: -1, partitions: -1, byPartition: [] as number[] };
  const arrived = () => {
    const seen = new Set(spans.map(wireFingerprint));
    return [...expected].every((f) => seen.has(f));
  };
  while (Date.now() < until) {
    if (arrived()) return;
    held = await topology.unacknowledged();
    if (held.routers === 0 && held.partitions === 0) {
      settledSince ??= Date.now();
      if (Date.now() - settledSince >= settledMillis && !arrived())
        throw new Error(
          `lost, not late: every message acknowledged for ${settledMillis} ms and still missing spans of ${what}\n${describeMissing(expected, spans)}`,
        );
    } else settledSince = undefined;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(
    `timed out after ${timeoutMillis} ms waiting for ${what}, with ${held.routers} message(s) unacknowledged by the routers and ${held.partitions} in the partitions (${held.byPartition.join(', ')})\n${describeMissing(expected, spans)}`,
  );
}
