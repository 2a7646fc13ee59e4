// Partitions: events/s from the runtime's single stream through a router (`route nats|redis`)
// and 1, 2 or 3 bridge instances sharing 6 partitions (`--partitions 6`) to a loopback OTLP
// receiver that discards, acknowledgements included: the clock stops when the router's consumer
// and every partition consumer have nothing pending. Process starts and the half-lease wait before
// taking partitions are included. Beside each rate, the CPU-seconds all the bridge's processes
// spent per event (read from this process's reaped children), so that what more instances cost
// shows even where 2 cores hide what they bring; and one consumer reading the stream directly,
// without router or partitions, as the baseline. The router alone (no instance: its clock stops
// once every copy is stored and its source acknowledged) shows what routing costs by itself.
// Usage: node bench/partitions.mjs [events]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { createClient } from 'redis';
import { behestLines } from './ingest.mjs';
import { startDiscardingReceiver } from './receiver.mjs';

const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const PARTITIONS = 6;
const LEASE_MS = '6000';

function start(args, endpoint) {
  return spawn(process.execPath, [cli, ...args, '--quiet'], {
    env: {
      ...process.env,
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_METRIC_EXPORT_INTERVAL: '1000',
      OTEL_BSP_SCHEDULE_DELAY: '200',
    },
    stdio: 'ignore',
  });
}

/** CPU-seconds of this process's children that have ended and been waited for (Linux). */
function childCpuSeconds() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After the state (index 0): utime 11, stime 12, cutime 13, cstime 14, in clock ticks.
    return (Number(fields[13]) + Number(fields[14])) / CLOCK_TICKS;
  } catch {
    return Number.NaN;
  }
}
const CLOCK_TICKS = 100;

async function measure(commands, endpoint, pending) {
  const cpuBefore = childCpuSeconds();
  const started = process.hrtime.bigint();
  const children = commands.map((args) => start(args, endpoint));
  await new Promise((r) => setTimeout(r, 1500));
  while ((await pending()) > 0) await new Promise((r) => setTimeout(r, 100));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  for (const child of children) child.kill('SIGTERM');
  await Promise.all(children.map((c) => new Promise((r) => c.on('close', r))));
  return { seconds, cpuSeconds: childCpuSeconds() - cpuBefore };
}

async function natsRun(lines, instances, endpoint, workers = 1, direct = false) {
  const id = randomUUID().slice(0, 8);
  const nc = await connect({ servers: 'nats://127.0.0.1:4222' });
  const jsm = await jetstreamManager(nc);
  const [stream, parts, subject] = [`AOB_PB_${id}`, `AOB_PBP_${id}`, `pbench.${id}`];
  await jsm.streams.add({ name: stream, subjects: [subject] });
  await jsm.streams.add({ name: parts, subjects: [`${subject}.*`] });
  const js = jetstream(nc);
  for (let i = 0; i < lines.length; i += 5000)
    await Promise.all(lines.slice(i, i + 5000).map((line) => js.publish(subject, line)));
  const left = async (streamName, durable) => {
    const info = await jsm.consumers.info(streamName, durable).catch(() => undefined);
    return info === undefined ? 1 : info.num_pending + info.num_ack_pending;
  };
  const instance = (n) => [
    'nats',
    '--stream',
    stream,
    '--subject',
    subject,
    '--partition-stream',
    parts,
    '--durable',
    `b${id}`,
    '--partitions',
    String(PARTITIONS),
    '--lease-ms',
    LEASE_MS,
    '--instance-id',
    `i${n}`,
    ...(workers > 1 ? ['--workers', String(workers)] : []),
  ];
  if (direct) {
    const measured = await measure(
      [['nats', '--stream', stream, '--subject', subject, '--durable', `d${id}`]],
      endpoint,
      () => left(stream, `d${id}`),
    );
    for (const name of [stream, parts]) await jsm.streams.delete(name).catch(() => undefined);
    await nc.drain();
    return measured;
  }
  const measured = await measure(
    [
      [
        'route',
        'nats',
        '--stream',
        stream,
        '--subject',
        subject,
        '--partitions',
        String(PARTITIONS),
        '--durable',
        `r${id}`,
      ],
      ...Array.from({ length: instances }, (_, n) => instance(n)),
    ],
    endpoint,
    async () => {
      let total = await left(stream, `r${id}`);
      // No instance: the router alone, done once every copy is stored and acknowledged.
      if (instances === 0) return total;
      for (let p = 0; p < PARTITIONS; p += 1) total += await left(parts, `b${id}-p${p}`);
      return total;
    },
  );
  for (const name of [stream, parts, `KV_b${id}-leases`])
    await jsm.streams.delete(name).catch(() => undefined);
  await nc.drain();
  return measured;
}

async function redisRun(lines, instances, endpoint, workers = 1, direct = false) {
  const redis = createClient({ url: 'redis://127.0.0.1:6379' });
  await redis.connect();
  const key = `aob:pbench:${randomUUID().slice(0, 8)}`;
  for (let i = 0; i < lines.length; i += 1000) {
    const batch = redis.multi();
    for (const line of lines.slice(i, i + 1000)) batch.xAdd(key, '*', { event: line });
    await batch.exec();
  }
  const left = async (stream, group) => {
    const groups = await redis.xInfoGroups(stream).catch(() => []);
    const g = groups.find((x) => x.name === group);
    return g === undefined ? 1 : Number(g.pending) + Number(g.lag ?? 1);
  };
  const instance = (n) => [
    'redis',
    '--stream',
    key,
    '--group',
    'bench',
    '--partitions',
    String(PARTITIONS),
    '--lease-ms',
    LEASE_MS,
    '--instance-id',
    `i${n}`,
    ...(workers > 1 ? ['--workers', String(workers)] : []),
  ];
  const measured = await measure(
    direct
      ? [['redis', '--stream', key, '--group', 'direct']]
      : [
          ['route', 'redis', '--stream', key, '--partitions', String(PARTITIONS)],
          ...Array.from({ length: instances }, (_, n) => instance(n)),
        ],
    endpoint,
    async () => {
      if (direct) return left(key, 'direct');
      let total = await left(key, 'agent-otel-bridge-router');
      if (instances === 0) return total;
      for (let p = 0; p < PARTITIONS; p += 1) total += await left(`${key}:${p}`, 'bench');
      return total;
    },
  );
  for await (const keys of redis.scanIterator({ MATCH: `${key}*`, COUNT: 1000 }))
    if (keys.length > 0) await redis.del(keys);
  redis.destroy();
  return measured;
}

/**
 * Events/s for the router alone (0: every copy stored), 1, 2, 3 instances (processes started
 * apart, as on several machines) and for one instance with `--workers` 2 and 4 (consumer
 * processes started by the bridge on one machine).
 */
export async function partitionsBench({
  events = 50_000,
  instances = [0, 1, 2, 3],
  workers = [2, 4],
} = {}) {
  const lines = behestLines(events);
  const receiver = await startDiscardingReceiver();
  try {
    // Events/s and CPU-µs per event of one configuration.
    const rate = ({ seconds, cpuSeconds }) => ({
      eventsPerSecond: lines.length / seconds,
      cpuMicrosPerEvent: (cpuSeconds / lines.length) * 1e6,
    });
    const nats = { direct: rate(await natsRun(lines, 1, receiver.endpoint, 1, true)) };
    const redis = { direct: rate(await redisRun(lines, 1, receiver.endpoint, 1, true)) };
    for (const n of instances) {
      nats[n] = rate(await natsRun(lines, n, receiver.endpoint));
      redis[n] = rate(await redisRun(lines, n, receiver.endpoint));
    }
    const natsWorkers = {};
    const redisWorkers = {};
    for (const w of workers) {
      natsWorkers[w] = rate(await natsRun(lines, 1, receiver.endpoint, w));
      redisWorkers[w] = rate(await redisRun(lines, 1, receiver.endpoint, w));
    }
    return {
      events: lines.length,
      nats,
      redis,
      workers: { nats: natsWorkers, redis: redisWorkers },
    };
  } finally {
    await receiver.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await partitionsBench({ events: Number(process.argv[2] ?? 50_000) });
  console.log(JSON.stringify(r));
}
