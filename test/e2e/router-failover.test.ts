// Routers on NATS JetStream and Redis as processes, with faults drawn from a seed (printed;
// ROUTER_FAULT_SEED replays one): while a runtime publishes, routers are killed (SIGKILL, and a
// new one started) or stopped for 0.3–4 s (past their 1.5 s lease or not) and continued, beside
// a busy process. However the faults fall, every partition holds each event once and every run's
// events in the order they were published: what a dead or paused router held comes back ahead of
// anything newer (docs/scaling-out.md, "Routers"), where two routers side by side would displace
// it by up to the ack wait (NATS) or the claim-idle time (Redis).
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterEach, describe, expect, it } from 'vitest';
import { partitionOf } from '../../src/partitions/partition-of.js';
import { seeded } from '../helpers/behest-delivery.js';
import { createClient } from 'redis';
import {
  deleteNatsStream,
  deleteRedisKey,
  NATS_URL,
  natsConsumerInfo,
  REDIS_URL,
  redisPending,
} from '../helpers/brokers.js';
import { startCli } from '../helpers/cli.js';
import type { RunningCli } from '../helpers/cli.js';
import { waitFor } from '../helpers/wire-spans.js';

const PARTITIONS = 4;
const RUNS = 24;
const EVENTS_PER_RUN = 60;
const LEASE_MS = 1500;
const ACK_WAIT_MS = 1500;

const FIRST_SEED = Number(process.env.ROUTER_FAULT_SEED ?? Date.now() % 1_000_000);
const seeds =
  process.env.ROUTER_FAULT_SEED === undefined ? [FIRST_SEED, FIRST_SEED + 1] : [FIRST_SEED];

type Fault =
  | { readonly kind: 'kill'; readonly atMillis: number; readonly router: number }
  | {
      readonly kind: 'stop';
      readonly atMillis: number;
      readonly router: number;
      readonly millis: number;
    };

/** Two or three faults over the publishing time, each on one of the two routers. */
function faultsOf(seed: number, publishMillis: number): Fault[] {
  const random = seeded(seed);
  const faults: Fault[] = [];
  let at = 300;
  for (let i = 0, n = 2 + Math.floor(random() * 2); i < n; i += 1) {
    at += Math.round(300 + random() * (publishMillis / n));
    const router = Math.floor(random() * 2);
    faults.push(
      random() < 0.4
        ? { kind: 'kill', atMillis: at, router }
        : { kind: 'stop', atMillis: at, router, millis: Math.round(300 + random() * 3700) },
    );
  }
  return faults;
}

/** A behest line of run `r`, its `k`-th event: the delta says which. */
const lineOf = (runId: string, k: number) =>
  JSON.stringify({
    TextDelta: {
      run_id: runId,
      delta: String(k),
      timestamp: new Date(Date.UTC(2025, 5, 3, 12) + k).toISOString(),
    },
  });

/** A busy process: one core's worth of contention until killed. */
function busy(): ChildProcess {
  return spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
}

/** One broker's side of the test: its routers' arguments, publishing, and what was routed. */
interface RoutedBroker {
  readonly name: string;
  routerArgs(n: number): string[];
  publish(line: string): Promise<void>;
  /** Copies stored in the partitions so far. */
  stored(): Promise<number>;
  /** Whether the source has nothing left unacknowledged (every entry read and acknowledged). */
  settled(total: number): Promise<boolean>;
  /** Every copy, partition by partition, in its partition's order. */
  copies(): Promise<{ partition: number; line: string }[]>;
  cleanup(): Promise<void>;
}

async function natsBroker(id: string): Promise<RoutedBroker> {
  const stream = `RF_${id}`;
  const partitionStream = `RF_P_${id}`;
  const subject = `rf.${id}`;
  const durable = `rf-${id}`;
  const nc = await connect({ servers: NATS_URL });
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: stream, subjects: [subject] });
  await jsm.streams.add({ name: partitionStream, subjects: [`${subject}.*`] });
  const js = jetstream(nc);
  return {
    name: 'nats',
    routerArgs: (n) => [
      'route',
      'nats',
      '--url',
      NATS_URL,
      '--stream',
      stream,
      '--subject',
      subject,
      '--partitions',
      String(PARTITIONS),
      '--durable',
      durable,
      '--ack-wait-ms',
      String(ACK_WAIT_MS),
      '--lease-ms',
      String(LEASE_MS),
      '--consumer',
      `router-${n}`,
    ],
    publish: async (line) => void (await js.publish(subject, line)),
    stored: async () => (await jsm.streams.info(partitionStream)).state.messages,
    async settled(total) {
      const info = await natsConsumerInfo(stream, durable);
      return info.numAckPending === 0 && info.ackFloor >= total;
    },
    async copies() {
      const out: { partition: number; line: string }[] = [];
      const last = (await jsm.streams.info(partitionStream)).state.last_seq;
      for (let seq = 1; seq <= last; seq += 1) {
        const message = await jsm.streams.getMessage(partitionStream, { seq });
        if (message === null) throw new Error(`copy ${seq} of ${partitionStream} is gone`);
        out.push({ partition: Number(message.subject.split('.').at(-1)), line: message.string() });
      }
      return out;
    },
    async cleanup() {
      await deleteNatsStream(stream);
      await deleteNatsStream(partitionStream);
      await nc.drain();
    },
  };
}

async function redisBroker(id: string): Promise<RoutedBroker> {
  const key = `rf:${id}`;
  const group = `rf-${id}`;
  const client = createClient({ url: REDIS_URL });
  await client.connect();
  const partitionKeys = Array.from({ length: PARTITIONS }, (_, p) => `${key}:${p}`);
  return {
    name: 'redis',
    routerArgs: (n) => [
      'route',
      'redis',
      '--url',
      REDIS_URL,
      '--stream',
      key,
      '--partitions',
      String(PARTITIONS),
      '--group',
      group,
      '--claim-idle-ms',
      String(ACK_WAIT_MS),
      '--lease-ms',
      String(LEASE_MS),
      '--consumer',
      `router-${n}`,
    ],
    publish: async (line) => void (await client.xAdd(key, '*', { event: line })),
    async stored() {
      let n = 0;
      for (const k of partitionKeys) n += await client.xLen(k);
      return n;
    },
    async settled(total) {
      const groups = await client.xInfoGroups(key);
      const entriesRead = Number(groups.find((g) => g.name === group)?.['entries-read'] ?? 0);
      return entriesRead >= total && (await redisPending(key, group)) === 0;
    },
    async copies() {
      const out: { partition: number; line: string }[] = [];
      for (const [p, k] of partitionKeys.entries())
        for (const entry of (await client.xRange(k, '-', '+')) ?? [])
          out.push({ partition: p, line: entry.message.event! });
      return out;
    },
    async cleanup() {
      for (const k of [key, ...partitionKeys]) await deleteRedisKey(k);
      client.destroy();
    },
  };
}

describe.each([
  ['NATS JetStream', natsBroker],
  ['Redis', redisBroker],
] as const)('%s routers under faults', (_name, makeBroker) => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  });

  it.each(seeds)(
    'keep every run in order on its partition through kills and pauses (faults of seed %i)',
    async (seed) => {
      const id = randomUUID().slice(0, 8);
      const runs = Array.from(
        { length: RUNS },
        (_, i) => `0190f3a2-7c4e-4b8a-9d2e-${id}${String(i).padStart(4, '0')}`,
      );
      const broker = await makeBroker(id);
      cleanups.push(() => broker.cleanup());

      let started = 0;
      const routers: RunningCli[] = [];
      const start = (slot: number) => {
        started += 1;
        const router = startCli(broker.routerArgs(started));
        routers[slot] = router;
        cleanups.push(() => router.stop('SIGKILL'));
      };
      start(0);
      start(1);
      // A busy process beside them: pauses and late timers are the point.
      const hog = busy();
      cleanups.push(() => Promise.resolve(hog.kill('SIGKILL')));

      const publishMillis = 6000;
      const faults = faultsOf(seed, publishMillis);
      console.log(
        `${broker.name} seed ${seed}: ${faults.map((f) => (f.kind === 'kill' ? `kill router ${f.router} at ${f.atMillis} ms` : `stop router ${f.router} at ${f.atMillis} ms for ${f.millis} ms`)).join(', ')}`,
      );
      const began = Date.now();
      const faulting = (async () => {
        for (const fault of faults) {
          await new Promise((r) => setTimeout(r, Math.max(0, began + fault.atMillis - Date.now())));
          const router = routers[fault.router]!;
          if (fault.kind === 'kill') {
            await router.stop('SIGKILL');
            start(fault.router);
          } else {
            process.kill(router.pid!, 'SIGSTOP');
            await new Promise((r) => setTimeout(r, fault.millis));
            process.kill(router.pid!, 'SIGCONT');
          }
        }
      })();

      // Events of the runs, interleaved, spread over the publishing time.
      const total = RUNS * EVENTS_PER_RUN;
      for (let k = 0; k < EVENTS_PER_RUN; k += 1) {
        for (const runId of runs) await broker.publish(lineOf(runId, k));
        await new Promise((r) => setTimeout(r, publishMillis / EVENTS_PER_RUN));
      }
      await faulting;

      await waitFor(async () => (await broker.stored()) >= total, 60_000, `${total} copies stored`);
      await waitFor(() => broker.settled(total), 30_000, 'the source acknowledged');

      // Every copy, by run, in its partition's order.
      const seen = new Map<string, number[]>();
      const partitionOfRun = new Map<string, number>();
      for (const { partition, line } of await broker.copies()) {
        const event = (JSON.parse(line) as { TextDelta: { run_id: string; delta: string } })
          .TextDelta;
        (seen.get(event.run_id) ?? seen.set(event.run_id, []).get(event.run_id)!).push(
          Number(event.delta),
        );
        partitionOfRun.set(event.run_id, partition);
      }
      const inOrder = Array.from({ length: EVENTS_PER_RUN }, (_, k) => k);
      const displaced = runs.filter((r) => JSON.stringify(seen.get(r)) !== JSON.stringify(inOrder));
      expect(
        displaced.map((r) => `${r}: ${JSON.stringify(seen.get(r))}`),
        'runs whose copies are missing, repeated or out of order',
      ).toEqual([]);
      for (const r of runs) expect(partitionOfRun.get(r)).toBe(partitionOf(r, PARTITIONS));
    },
    150_000,
  );
});
