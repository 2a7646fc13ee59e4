// Partition ownership among instances in one process, on the real Redis of this machine: one
// instance takes every partition; two more join and each ends up with its share (⌈P/n⌉), the
// extra ones handed over; one leaves gracefully and the others take its partitions. Messages are
// published to every partition all along. Whatever the joins and leaves: every message is applied,
// each ownership applies its partition's messages in stream order, no two ownerships of one
// partition read at once, and a message is applied twice only across a change of owner.
import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import type { DataPoint, Histogram } from '@opentelemetry/sdk-metrics';
import { afterEach, describe, expect, it } from 'vitest';
import type { BrokerSource } from '../../src/sources/broker-source.js';
import { REDIS_URL } from '../helpers/brokers.js';
import { redisLeaseKey } from '../../src/partitions/redis-lease-store.js';
import { redisPartitionInstance } from '../helpers/redis-partitions.js';
import { waitFor } from '../helpers/wire-spans.js';

const PARTITIONS = 6;
const LEASE_MILLIS = 600;

interface Applied {
  readonly partition: number;
  readonly seq: number;
  readonly instance: string;
  readonly epoch: number;
}

describe('partition balancing among instances', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('gives each instance its share as they join and leave, every message applied in order by one owner at a time', async () => {
    const key = `aob-bal-${randomUUID().slice(0, 8)}`;
    const redis = createClient({ url: REDIS_URL });
    await redis.connect();
    cleanups.push(async () => {
      for (const k of await redis.keys(`${key}*`)) await redis.del(k);
      await redis.quit();
    });
    const applied: Applied[] = [];
    /** Partition → instance → epoch owned now (from what each instance said). */
    const owners = new Map<number, Map<string, number>>();
    const overlaps: string[] = [];
    const running = new Map<string, { source: BrokerSource; done: Promise<void> }>();

    // Instance a's own metrics, read as an exporter would.
    class Reader extends MetricReader {
      protected onForceFlush = () => Promise.resolve();
      protected onShutdown = () => Promise.resolve();
    }
    const reader = new Reader();
    const meterProvider = new MeterProvider({ readers: [reader] });
    cleanups.push(() => meterProvider.shutdown());
    const start = async (id: string) => {
      const source = redisPartitionInstance({
        ...(id === 'a' ? { meter: meterProvider.getMeter('test') } : {}),
        key,
        id,
        partitions: PARTITIONS,
        leaseMillis: LEASE_MILLIS,
        batchSize: 20,
        report: (message) => {
          const taken = /^owns partition (\d+) of \d+ \(epoch (\d+)\)/.exec(message);
          const gone = /^(?:handed|lost) partition (\d+)/.exec(message);
          if (taken !== null) {
            const p = Number(taken[1]);
            const now = owners.get(p) ?? new Map<string, number>();
            if (now.size > 0)
              overlaps.push(`${id} took ${p} while ${[...now.keys()].join()} held it`);
            now.set(id, Number(taken[2]));
            owners.set(p, now);
          } else if (gone !== null) owners.get(Number(gone[1]))?.delete(id);
        },
      });
      await source.open();
      const done = source.run(
        (text, delivery) => {
          const [p, seq] = text.split(':').map(Number) as [number, number];
          applied.push({ partition: p, seq, instance: id, epoch: owners.get(p)?.get(id) ?? -1 });
          delivery.ack();
        },
        () => true,
      );
      running.set(id, { source, done });
      cleanups.push(async () => {
        source.stop();
        await done.catch(() => undefined);
        await source.close();
      });
    };
    const stop = async (id: string) => {
      const { source, done } = running.get(id)!;
      running.delete(id);
      source.stop();
      await done;
      await source.close();
    };
    const held = (id: string) => [...owners.values()].filter((o) => o.has(id)).length;
    const balanced = (ids: string[]) => () => {
      const share = Math.ceil(PARTITIONS / ids.length);
      const counts = ids.map(held);
      return (
        counts.reduce((a, b) => a + b, 0) === PARTITIONS &&
        counts.every((c) => c <= share) &&
        [...owners.values()].every((o) => o.size === 1)
      );
    };

    // Published all along, to every partition in turn.
    let published = 0;
    let publishing = true;
    const publisher = (async () => {
      while (publishing) {
        const batch = redis.multi();
        for (let p = 0; p < PARTITIONS; p += 1)
          batch.xAdd(`${key}:${p}`, '*', { event: `${p}:${published}` });
        await batch.exec();
        published += 1;
        await new Promise((r) => setTimeout(r, 20));
      }
    })();

    await start('a');
    await waitFor(balanced(['a']), 10_000, 'a owning every partition');
    await start('b');
    await start('c');
    await waitFor(balanced(['a', 'b', 'c']), 20_000, 'a share each for a, b and c');
    expect(['a', 'b', 'c'].map(held)).toEqual([2, 2, 2]);
    await stop('b');
    await waitFor(balanced(['a', 'c']), 20_000, "b's partitions taken by a and c");
    publishing = false;
    await publisher;
    await waitFor(
      () => new Set(applied.map((a) => `${a.partition}:${a.seq}`)).size === published * PARTITIONS,
      20_000,
      'every message applied',
    );

    expect(overlaps).toEqual([]);
    // What a said of itself: every partition taken, four of them given up, its share owned,
    // each take timed, renewals measured.
    const { resourceMetrics } = await reader.collect();
    const metric = (name: string) =>
      resourceMetrics.scopeMetrics.flatMap((m) => m.metrics).find((m) => m.descriptor.name === name)
        ?.dataPoints as DataPoint<number | Histogram>[] | undefined;
    const changes = new Map(
      (metric('agent_bridge.partitions.changes') ?? []).map((p) => [
        p.attributes['agent_bridge.partition.change'],
        p.value as number,
      ]),
    );
    expect(changes.get('taken')).toBeGreaterThanOrEqual(PARTITIONS);
    // Handed over (or, on a machine too busy to renew in time, lost).
    expect((changes.get('handed_over') ?? 0) + (changes.get('lost') ?? 0)).toBeGreaterThanOrEqual(
      PARTITIONS - 2,
    );
    expect((metric('agent_bridge.partitions.owned') ?? [])[0]?.value).toBe(held('a'));
    expect(
      ((metric('agent_bridge.partitions.takeover.duration') ?? [])[0]?.value as Histogram).count,
    ).toBe(changes.get('taken'));
    expect(
      ((metric('agent_bridge.partitions.renewal.lateness') ?? [])[0]?.value as Histogram).count,
    ).toBeGreaterThan(5);
    for (let p = 0; p < PARTITIONS; p += 1) {
      const ofP = applied.filter((a) => a.partition === p);
      // Each ownership applied its messages in stream order.
      const byOwnership = new Map<string, number[]>();
      for (const a of ofP)
        byOwnership.set(`${a.instance}/${a.epoch}`, [
          ...(byOwnership.get(`${a.instance}/${a.epoch}`) ?? []),
          a.seq,
        ]);
      for (const [ownership, seqs] of byOwnership)
        expect(seqs, `partition ${p}, ownership ${ownership}`).toEqual(
          [...seqs].sort((x, y) => x - y),
        );
      // Twice only across a change of owner: at most one copy per ownership after the first.
      const copies = ofP.length - new Set(ofP.map((a) => a.seq)).size;
      expect(copies, `partition ${p}`).toBeLessThanOrEqual((byOwnership.size - 1) * 20);
    }
  }, 90_000);

  it("gives a closed instance's partitions back at once: its leases are gone when close() resolves, and another instance takes them", async () => {
    const key = `aob-close-${randomUUID().slice(0, 8)}`;
    const redis = createClient({ url: REDIS_URL });
    await redis.connect();
    cleanups.push(async () => {
      for (const k of await redis.keys(`${key}*`)) await redis.del(k);
      await redis.quit();
    });
    // Longer than a's close takes to return: a lease gone by then was released, not expired.
    const leaseMillis = 6_000;
    const owned = new Map<string, Set<number>>();
    const start = async (id: string) => {
      owned.set(id, new Set());
      const source = redisPartitionInstance({
        key,
        id,
        partitions: 4,
        leaseMillis,
        batchSize: 20,
        report: (message) => {
          const taken = /^owns partition (\d+)/.exec(message);
          if (taken !== null) owned.get(id)!.add(Number(taken[1]));
        },
      });
      await source.open();
      const done = source.run(
        (_text, delivery) => delivery.ack(),
        () => true,
      );
      cleanups.push(async () => {
        source.stop();
        await done.catch(() => undefined);
        await source.close();
      });
      return { source, done };
    };
    const a = await start('a');
    await waitFor(() => owned.get('a')!.size === 4, 20_000, 'a owning every partition');
    const leases = async () =>
      Promise.all([0, 1, 2, 3].map((p) => redis.get(redisLeaseKey(`${key}:bridge`, p))));
    expect((await leases()).every((v) => v?.startsWith('a/') === true)).toBe(true);
    // Closed while it reads (a shutdown cut short): nothing handed over, every lease released.
    await a.source.close();
    expect(await leases()).toEqual([null, null, null, null]);
    await a.done;
    await start('b');
    await waitFor(() => owned.get('b')!.size === 4, 20_000, 'b owning every partition');
  }, 60_000);
});
