// Sources: events/s from NATS JetStream and Redis Streams through `agent-otel-bridge nats|redis`
// to a loopback OTLP receiver that accepts and discards, acknowledgements included (the clock
// stops when the broker reports nothing pending).
// Usage: node bench/brokers.mjs [events]   (after `npm run build`; NATS and Redis on loopback)
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { createClient } from 'redis';
import { createDemoLines } from '../dist/sources/demo-runs.js';

const target = Number(process.argv[2] ?? 50_000);
const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const lines = [];
for (let b = 0; lines.length < target; b += 1)
  lines.push(...createDemoLines(60, Date.UTC(2025, 5, 1, 12) + b * 600_000));

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const endpoint = `http://127.0.0.1:${server.address().port}`;

async function measure(args, pending) {
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

const id = randomUUID().slice(0, 8);
const nc = await connect({ servers: 'nats://127.0.0.1:4222' });
const jsm = await jetstreamManager(nc);
const stream = `AOB_BENCH_${id}`;
await jsm.streams.add({ name: stream, subjects: [`bench.${id}`] });
const js = jetstream(nc);
await Promise.all(lines.map((line) => js.publish(`bench.${id}`, line)));
const natsSeconds = await measure(
  ['nats', '--stream', stream, '--subject', `bench.${id}`, '--durable', 'bench'],
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
  ['redis', '--stream', key, '--group', 'bench', '--consumer', 'bench-1'],
  async () => {
    const groups = await redis.xInfoGroups(key).catch(() => []);
    const group = groups.find((g) => g.name === 'bench');
    return group === undefined ? 1 : Number(group.pending) + Number(group.lag ?? 1);
  },
);
await redis.del(key);
redis.destroy();
server.close();

console.log(
  `node ${process.version}, ${lines.length.toLocaleString('en-US')} behest events, acknowledged after export`,
);
console.log(
  `${'NATS JetStream → OTLP, events/s'.padEnd(40)} ${Math.round(lines.length / natsSeconds).toLocaleString('en-US')} (${natsSeconds.toFixed(1)} s)`,
);
console.log(
  `${'Redis Streams → OTLP, events/s'.padEnd(40)} ${Math.round(lines.length / redisSeconds).toLocaleString('en-US')} (${redisSeconds.toFixed(1)} s)`,
);
