// Sources: events/s from NATS JetStream and Redis Streams through `agent-otel-bridge nats|redis` to
// a loopback OTLP receiver that accepts and discards, acknowledgements included (the clock stops
// when the broker reports nothing pending; process start and a 1 s metric interval included).
// Usage: node bench/brokers.mjs [events]   (NATS and Redis on loopback)
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { createClient } from 'redis';
import { behestLines } from './ingest.mjs';
import { startDiscardingReceiver } from './receiver.mjs';

const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));

async function measure(args, endpoint, pending) {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [cli, ...args, '--quiet'], {
    env: {
      ...process.env,
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_METRIC_EXPORT_INTERVAL: '1000',
      OTEL_BSP_SCHEDULE_DELAY: '200',
    },
    stdio: 'ignore',
  });
  await new Promise((r) => setTimeout(r, 1000));
  while ((await pending()) > 0) await new Promise((r) => setTimeout(r, 100));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  child.kill('SIGTERM');
  await new Promise((r) => child.on('close', r));
  return seconds;
}

export async function brokersBench({ events = 50_000, extra = [] } = {}) {
  const lines = behestLines(events);
  const receiver = await startDiscardingReceiver();
  const id = randomUUID().slice(0, 8);

  const nc = await connect({ servers: 'nats://127.0.0.1:4222' });
  const jsm = await jetstreamManager(nc);
  const stream = `AOB_BENCH_${id}`;
  await jsm.streams.add({ name: stream, subjects: [`bench.${id}`] });
  const js = jetstream(nc);
  for (let i = 0; i < lines.length; i += 5000)
    await Promise.all(lines.slice(i, i + 5000).map((line) => js.publish(`bench.${id}`, line)));
  const natsSeconds = await measure(
    ['nats', '--stream', stream, '--subject', `bench.${id}`, '--durable', 'bench', ...extra],
    receiver.endpoint,
    async () => {
      const info = await jsm.consumers.info(stream, 'bench').catch(() => undefined);
      return info === undefined ? 1 : info.num_pending + info.num_ack_pending;
    },
  );
  await jsm.streams.delete(stream);
  await nc.drain();

  const redis = createClient({ url: 'redis://127.0.0.1:6379' });
  await redis.connect();
  const key = `aob:bench:${id}`;
  for (let i = 0; i < lines.length; i += 1000) {
    const batch = redis.multi();
    for (const line of lines.slice(i, i + 1000)) batch.xAdd(key, '*', { event: line });
    await batch.exec();
  }
  const redisSeconds = await measure(
    ['redis', '--stream', key, '--group', 'bench', '--consumer', 'bench-1', ...extra],
    receiver.endpoint,
    async () => {
      const groups = await redis.xInfoGroups(key).catch(() => []);
      const group = groups.find((g) => g.name === 'bench');
      return group === undefined ? 1 : Number(group.pending) + Number(group.lag ?? 1);
    },
  );
  await redis.del(key);
  redis.destroy();
  await receiver.close();
  return {
    events: lines.length,
    natsEventsPerSecond: lines.length / natsSeconds,
    redisEventsPerSecond: lines.length / redisSeconds,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await brokersBench({ events: Number(process.argv[2] ?? 50_000) });
  console.log(
    `${r.events} events: NATS JetStream ${Math.round(r.natsEventsPerSecond)} events/s, Redis Streams ${Math.round(r.redisEventsPerSecond)} events/s (acknowledged after export)`,
  );
}
