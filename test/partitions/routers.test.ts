// The routers in one process, on the real NATS JetStream and Redis of this machine: one router,
// or two sharing the runtime's stream, republish every event to its run's partition
// (fnv1a32(run id) mod P; what names no run to partition 0), each exactly once, and acknowledge
// the source; started before anything was published, they wait for the stream. One router routes
// at a time (the routing lease), so each run's events keep the source's order, with two routers
// as with one (docs/scaling-out.md).
import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { createClient } from 'redis';
import { afterEach, describe, expect, it } from 'vitest';
import { createNatsRouter } from '../../src/partitions/nats-router.js';
import { partitionOf } from '../../src/partitions/partition-of.js';
import { createRedisRouter } from '../../src/partitions/redis-router.js';
import {
  MARK_TRANSIT_MILLIS,
  markAge,
  routedChannel,
  routedSubject,
} from '../../src/partitions/routed-marks.js';
import type { Router, RouterOptions } from '../../src/partitions/router.js';
import { NATS_URL, REDIS_URL } from '../helpers/brokers.js';
import { waitFor } from '../helpers/wire-spans.js';

const PARTITIONS = 4;
const RUNS = Array.from(
  { length: 12 },
  (_, i) => `0190f3a2-7c4e-4b8a-9d2e-${String(i).padStart(12, '0')}`,
);

/** Events of the runs, interleaved, each numbered; and lines that name no run. */
function events(): string[] {
  const lines: string[] = [];
  for (let k = 0; k < 10; k += 1)
    for (const run of RUNS)
      lines.push(
        JSON.stringify({
          TextDelta: { run_id: run, delta: `${k}`, timestamp: `2025-06-01T12:00:0${k}Z` },
        }),
      );
  lines.push('not json at all', JSON.stringify({ Unknown: {} }));
  return lines;
}

const expectedOf = (lines: readonly string[]) => {
  const byPartition = new Map<number, string[]>();
  for (const line of lines) {
    const run = /"run_id":"([^"]+)"/.exec(line)?.[1];
    const p = run === undefined ? 0 : partitionOf(run, PARTITIONS);
    byPartition.set(p, [...(byPartition.get(p) ?? []), line]);
  }
  return byPartition;
};

interface Broker {
  options(n: number): RouterOptions;
  create(options: RouterOptions): Router;
  publish(lines: readonly string[]): Promise<void>;
  /** What each partition holds, in order. */
  partitions(): Promise<Map<number, string[]>>;
  /** Source messages not yet acknowledged. */
  unacknowledged(): Promise<number>;
  /** Hears the routers' drain marks until what it resolves to is called. */
  listen(onMark: (text: string) => void): Promise<() => Promise<void>>;
  cleanup(): Promise<void>;
}

function natsBroker(): Broker {
  const id = randomUUID().slice(0, 8);
  const stream = `AOB_ROUTE_${id}`;
  const parts = `AOB_ROUTED_${id}`;
  const subject = `route.${id}`;
  return {
    options: (n) => ({
      url: NATS_URL,
      stream,
      source: subject,
      partitions: PARTITIONS,
      group: 'routers',
      consumer: `router-${n}`,
      ackWaitMillis: 2000,
      leaseMillis: 2000,
      batchSize: 16,
      report: () => undefined,
    }),
    create: createNatsRouter,
    async publish(lines) {
      const nc = await connect({ servers: NATS_URL });
      const jsm = await jetstreamManager(nc);
      await jsm.streams.add({ name: stream, subjects: [subject] }).catch(() => undefined);
      await jsm.streams.add({ name: parts, subjects: [`${subject}.*`] }).catch(() => undefined);
      const js = jetstream(nc);
      for (const line of lines) await js.publish(subject, line);
      await nc.drain();
    },
    async partitions() {
      const nc = await connect({ servers: NATS_URL });
      const jsm = await jetstreamManager(nc);
      const out = new Map<number, string[]>();
      const info = await jsm.streams.info(parts).catch(() => undefined);
      const last = info?.state.last_seq ?? 0;
      for (let seq = 1; seq <= last; seq += 1) {
        const m = await jsm.streams.getMessage(parts, { seq }).catch(() => undefined);
        if (m === undefined || m === null) continue;
        const p = Number(m.subject.split('.').at(-1));
        out.set(p, [...(out.get(p) ?? []), m.string()]);
      }
      await nc.drain();
      return out;
    },
    async unacknowledged() {
      const nc = await connect({ servers: NATS_URL });
      const info = await (
        await jetstreamManager(nc)
      ).consumers
        .info(stream, 'routers')
        .catch(() => undefined);
      await nc.drain();
      return info === undefined ? -1 : info.num_ack_pending + info.num_pending;
    },
    async listen(onMark) {
      const nc = await connect({ servers: NATS_URL });
      nc.subscribe(routedSubject(subject), { callback: (_e, m) => onMark(m.string()) });
      await nc.flush();
      return () => nc.drain();
    },
    async cleanup() {
      const nc = await connect({ servers: NATS_URL });
      const jsm = await jetstreamManager(nc);
      for (const name of [stream, parts]) await jsm.streams.delete(name).catch(() => undefined);
      await nc.drain();
    },
  };
}

function redisBroker(): Broker {
  const key = `aob:route:${randomUUID().slice(0, 8)}`;
  const client = createClient({ url: REDIS_URL });
  const ready = client.connect();
  return {
    options: (n) => ({
      url: REDIS_URL,
      stream: '',
      source: key,
      partitions: PARTITIONS,
      group: 'routers',
      consumer: `router-${n}`,
      ackWaitMillis: 2000,
      leaseMillis: 2000,
      batchSize: 16,
      report: () => undefined,
    }),
    create: createRedisRouter,
    async publish(lines) {
      await ready;
      for (const line of lines) await client.xAdd(key, '*', { event: line });
    },
    async partitions() {
      await ready;
      const out = new Map<number, string[]>();
      for (let p = 0; p < PARTITIONS; p += 1) {
        const entries = (await client.xRange(`${key}:${p}`, '-', '+')) ?? [];
        if (entries.length > 0)
          out.set(
            p,
            entries.map((e) => e.message.event!),
          );
      }
      return out;
    },
    async unacknowledged() {
      await ready;
      const groups = await client.xInfoGroups(key).catch(() => []);
      const g = groups.find((x) => x.name === 'routers');
      return g === undefined ? -1 : Number(g.pending) + Number(g.lag ?? 0);
    },
    async listen(onMark) {
      const subscriber = createClient({ url: REDIS_URL });
      await subscriber.connect();
      await subscriber.subscribe(routedChannel(key), onMark);
      return async () => {
        await subscriber.quit();
      };
    },
    async cleanup() {
      await ready;
      for (const k of await client.keys(`${key}*`)) await client.del(k);
      await client.quit();
    },
  };
}

describe.each([
  ['NATS JetStream', natsBroker],
  ['Redis', redisBroker],
] as const)('%s routers', (_name, makeBroker) => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it.each([1, 2])(
    '%i router(s) republish every event once to its run’s partition and acknowledge the source',
    async (count) => {
      const broker = makeBroker();
      cleanups.push(() => broker.cleanup());
      const lines = events();
      // Started before anything was published: they wait for the stream.
      const routers = Array.from({ length: count }, (_, n) => broker.create(broker.options(n + 1)));
      const runs = routers.map((r) => r.run());
      cleanups.push(async () => {
        for (const r of routers) r.stop();
        await Promise.all(runs);
      });
      await broker.publish(lines.slice(0, 60));
      await broker.publish(lines.slice(60));
      await waitFor(
        () => routers.reduce((t, r) => t + r.routed, 0) >= lines.length,
        30_000,
        'every event routed',
      );
      await waitFor(
        async () => (await broker.unacknowledged()) === 0,
        15_000,
        'the source acknowledged',
      );
      const got = await broker.partitions();
      const want = expectedOf(lines);
      // Each partition holds its runs' events once each; within a run, in the source's order.
      for (let p = 0; p < PARTITIONS; p += 1) {
        const held = got.get(p) ?? [];
        expect([...held].sort(), `partition ${p}`).toEqual([...(want.get(p) ?? [])].sort());
        for (const run of RUNS) {
          const ofRun = (xs: readonly string[]) => xs.filter((x) => x.includes(run));
          expect(ofRun(held), `partition ${p}, run ${run}`).toEqual(ofRun(want.get(p) ?? []));
        }
      }
    },
    60_000,
  );

  it('a router marks its source read to the end only once every copy read by then is stored', async () => {
    const broker = makeBroker();
    cleanups.push(() => broker.cleanup());
    const lines = events();
    const router = broker.create(broker.options(1));
    const running = router.run();
    cleanups.push(async () => {
      router.stop();
      await running;
    });
    // Each mark, as an instance hears it: when the router had read to the end (its way here
    // taken off, as an instance does), and what it had routed.
    const marks: { drainedAt: number; routed: number }[] = [];
    const stopListening = await broker.listen((text) => {
      const age = markAge(text);
      if (typeof age === 'number')
        marks.push({ drainedAt: Date.now() - age - MARK_TRANSIT_MILLIS, routed: router.routed });
    });
    cleanups.push(stopListening);
    await broker.publish(lines.slice(0, 60));
    const firstPublished = Date.now();
    await broker.publish(lines.slice(60));
    const allPublished = Date.now();
    await waitFor(
      () => marks.some((m) => m.drainedAt > allPublished),
      15_000,
      'a mark after everything was published',
    );
    // A mark that says the source was read to the end after a line was published comes after
    // that line was routed (stored in its partition, acknowledged).
    for (const mark of marks) {
      if (mark.drainedAt > allPublished) expect(mark.routed).toBe(lines.length);
      else if (mark.drainedAt > firstPublished) expect(mark.routed).toBeGreaterThanOrEqual(60);
    }
  }, 60_000);

  it('a router says it is behind when its term begins, and marks no drain until it has read a backlog to the end', async () => {
    const broker = makeBroker();
    cleanups.push(() => broker.cleanup());
    // Dozens of full reads waiting before the router starts.
    const lines = Array.from({ length: 6 }, () => events()).flat();
    await broker.publish(lines);
    const router = broker.create(broker.options(1));
    const marks: { kind: number | 'behind'; routed: number }[] = [];
    const stopListening = await broker.listen((text) => {
      const kind = markAge(text);
      if (kind !== undefined) marks.push({ kind, routed: router.routed });
    });
    cleanups.push(stopListening);
    const running = router.run();
    cleanups.push(async () => {
      router.stop();
      await running;
    });
    await waitFor(
      () => marks.some((m) => m.kind !== 'behind'),
      30_000,
      'a drain mark after the backlog',
    );
    // Behind before anything was routed (and perhaps again while the backlog was read, at most
    // every 250 ms); the first drain mark only once everything was routed.
    expect(marks[0]).toEqual({ kind: 'behind', routed: 0 });
    const firstDrain = marks.findIndex((m) => m.kind !== 'behind');
    expect(marks[firstDrain]!.routed).toBe(lines.length);
  }, 60_000);

  it('routers of two sources route at the same time, each source on a lease of its own', async () => {
    const brokers = [makeBroker(), makeBroker()];
    for (const broker of brokers) cleanups.push(() => broker.cleanup());
    const lines = events();
    // The same group name and consumer name on both: only the source tells their leases apart.
    const routers = brokers.map((broker) => broker.create(broker.options(1)));
    const runs = routers.map((r) => r.run());
    cleanups.push(async () => {
      for (const r of routers) r.stop();
      await Promise.all(runs);
    });
    for (const broker of brokers) await broker.publish(lines);
    await waitFor(
      () => routers.every((r) => r.routed >= lines.length),
      30_000,
      'both sources routed',
    );
    for (const broker of brokers) {
      const got = await broker.partitions();
      expect([...got.values()].flat().sort()).toEqual([...lines].sort());
    }
  }, 60_000);

  it('route one at a time, and a router stopped on purpose hands over at once', async () => {
    const broker = makeBroker();
    cleanups.push(() => broker.cleanup());
    const lines = events();
    const reports: string[][] = [[], []];
    // A lease far longer than the test: only a release lets the standby take over in time.
    const routers = [0, 1].map((n) =>
      broker.create({
        ...broker.options(n + 1),
        leaseMillis: 60_000,
        report: (m) => reports[n]!.push(m),
      }),
    );
    const runs = routers.map((r) => r.run());
    cleanups.push(async () => {
      for (const r of routers) r.stop();
      await Promise.all(runs);
    });
    await broker.publish(lines.slice(0, 60));
    await waitFor(() => routers[0]!.routed + routers[1]!.routed >= 60, 30_000, 'the first events');
    const leader = routers[0]!.routed > 0 ? 0 : 1;
    const standby = 1 - leader;
    expect(routers[standby]!.routed).toBe(0);
    expect(reports[standby]).toContain('standing by: another router routes now');
    routers[leader]!.stop();
    await runs[leader];
    await broker.publish(lines.slice(60));
    await waitFor(
      () => routers[standby]!.routed >= lines.length - 60,
      30_000,
      'the standby routing the rest',
    );
    expect(routers[leader]!.routed).toBe(60);
    expect(reports[standby]!.some((m) => /^routing \(epoch \d+\)$/.test(m))).toBe(true);
    await waitFor(
      async () => (await broker.unacknowledged()) === 0,
      15_000,
      'the source acknowledged',
    );
    const got = await broker.partitions();
    const want = expectedOf(lines);
    for (let p = 0; p < PARTITIONS; p += 1)
      expect(got.get(p) ?? [], `partition ${p}`).toEqual(want.get(p) ?? []);
  }, 60_000);
});

describe('what a router leaves in each broker', () => {
  it('a NATS copy carries the source message as its Nats-Msg-Id, so the partition stream keeps one copy of it', async () => {
    const broker = natsBroker();
    const options = broker.options(1);
    const partsStream = options.stream.replace('AOB_ROUTE_', 'AOB_ROUTED_');
    const router = createNatsRouter(options);
    const running = router.run();
    try {
      const lines = events();
      await broker.publish(lines);
      await waitFor(() => router.routed >= lines.length, 30_000, 'every event routed');
      const nc = await connect({ servers: NATS_URL });
      try {
        const jsm = await jetstreamManager(nc);
        const ids: string[] = [];
        for (let seq = 1; seq <= lines.length; seq += 1) {
          const copy = await jsm.streams.getMessage(partsStream, { seq });
          // The source stream holds the lines in the order published: line k at sequence k + 1.
          expect(copy?.header.get('Nats-Msg-Id')).toBe(
            `${options.stream}:${lines.indexOf(copy!.string()) + 1}`,
          );
          ids.push(copy!.header.get('Nats-Msg-Id'));
        }
        expect(new Set(ids).size).toBe(lines.length);
        // A second copy of a routed message (a router that died after storing it, before
        // acknowledging it) is dropped by the partition stream.
        const again = await jetstream(nc).publish(`${options.source}.0`, 'again', {
          msgID: ids[0]!,
        });
        expect(again.duplicate).toBe(true);
        expect((await jsm.streams.info(partsStream)).state.messages).toBe(lines.length);
      } finally {
        await nc.drain();
      }
    } finally {
      router.stop();
      await running;
      await broker.cleanup();
    }
  }, 60_000);

  it('a Redis entry without the event field stays pending in the source, said once, and the rest is routed', async () => {
    const broker = redisBroker();
    const options = broker.options(1);
    const reports: string[] = [];
    const router = createRedisRouter({ ...options, report: (m) => reports.push(m) });
    const running = router.run();
    const client = createClient({ url: REDIS_URL });
    await client.connect();
    try {
      const lines = events();
      await broker.publish(lines.slice(0, 10));
      const odd = await client.xAdd(options.source, '*', { note: 'no event here' });
      await broker.publish(lines.slice(10));
      await waitFor(() => router.routed >= lines.length, 30_000, 'every event routed');
      await waitFor(
        async () => (await broker.unacknowledged()) === 1,
        15_000,
        'all acknowledged but the entry without the field',
      );
      const pending = await client.xPendingRange(options.source, options.group, '-', '+', 10);
      expect(pending.map((p) => p.id)).toEqual([odd]);
      expect(
        reports.filter((m) => m.includes(`entry ${odd} of ${options.source} has no field "event"`)),
      ).toHaveLength(1);
      const got = await broker.partitions();
      expect([...got.values()].flat().sort()).toEqual([...lines].sort());
    } finally {
      router.stop();
      await running;
      await client.quit();
      await broker.cleanup();
    }
  }, 60_000);

  it('a Redis router that claims entries a dead router held skips those deleted meanwhile and routes the rest once, in order', async () => {
    const broker = redisBroker();
    const options = broker.options(1);
    const reports: string[] = [];
    const client = createClient({ url: REDIS_URL });
    await client.connect();
    try {
      // A router that read everything and died before routing any of it: all of it pending.
      await client.xGroupCreate(options.source, options.group, '0', { MKSTREAM: true });
      const lines = events();
      await broker.publish(lines);
      const read = (await client.xReadGroup(
        options.group,
        'router-dead',
        { key: options.source, id: '>' },
        { COUNT: lines.length },
      )) as { messages: { id: string }[] }[];
      const ids = read[0]!.messages.map((m) => m.id);
      expect(ids).toHaveLength(lines.length);
      // Trimmed or deleted while pending: every third entry, the first and the last among them.
      const deleted = new Set(ids.filter((_, i) => i % 3 === 0 || i === ids.length - 1));
      await client.xDel(options.source, [...deleted]);
      const kept = lines.filter((_, i) => !deleted.has(ids[i]!));
      const router = createRedisRouter({ ...options, report: (m) => reports.push(m) });
      const running = router.run();
      try {
        await waitFor(() => router.routed >= kept.length, 30_000, 'every entry left routed');
        await waitFor(
          async () => (await broker.unacknowledged()) === 0,
          15_000,
          'nothing left pending',
        );
        const more = events().slice(0, 4);
        await broker.publish(more);
        await waitFor(() => router.routed >= kept.length + more.length, 30_000, 'later entries');
      } finally {
        router.stop();
        await running;
      }
      expect(router.routed).toBe(kept.length + 4);
      // Each partition holds its entries once, in the source's order; the term never failed.
      expect(await broker.partitions()).toEqual(expectedOf([...kept, ...events().slice(0, 4)]));
      expect(reports.filter((m) => /failed|cannot/.test(m))).toEqual([]);
    } finally {
      await client.quit();
      await broker.cleanup();
    }
  }, 60_000);
});
