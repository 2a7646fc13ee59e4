// Ownership changes while a lease store's answer is in flight, on the real Redis of this machine,
// the answers held by the test: the lease store is the real one, wrapped so that a renewal's
// answer waits at a gate the test opens (the renewal itself reached Redis), or is answered as
// refused; the instance's clock (`Date.now`) can be moved ahead without time passing, so that an
// ownership's act window ends while a renewal is in flight. In each, nothing is applied under an
// ownership that could have lapsed, the ownership says once what happened, and the partition is
// read again from where it was left: every message applied once, in order.
import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import type { DataPoint } from '@opentelemetry/sdk-metrics';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createPartitionedSource } from '../../src/partitions/partitioned-source.js';
import type { LeaseStore } from '../../src/partitions/lease-store.js';
import { createRedisLeaseStore } from '../../src/partitions/redis-lease-store.js';
import type { BrokerSource } from '../../src/sources/broker-source.js';
import { createRedisSource } from '../../src/sources/redis-source.js';
import { REDIS_URL } from '../helpers/brokers.js';
import { ManualReader } from '../helpers/harness.js';
import { waitFor } from '../helpers/wire-spans.js';

const LEASE_MILLIS = 1000;

/** A gate that held renewal answers wait at until the test opens it. */
class Gate {
  private opened: Promise<void> = Promise.resolve();
  private open: (() => void) | undefined;
  waiting = 0;
  /** Answered instead of the store's answer while set. */
  answer: boolean | undefined;
  /** Renewals answered as refused by the gate. */
  refused = 0;
  /** When (performance.now()) the latest answer was given, on a clock the test does not move. */
  answeredAt = 0;
  /** Partitions whose renewals the gate refuses. */
  readonly refusing = new Set<number>();
  /** Renewals fail with this error (the broker away) while set. */
  failing: Error | undefined;

  close(): void {
    this.opened = new Promise((resolve) => (this.open = resolve));
  }

  release(): void {
    this.open?.();
    this.open = undefined;
  }

  async pass(): Promise<void> {
    this.waiting += 1;
    await this.opened;
    this.waiting -= 1;
  }
}

describe('ownership changes while a lease answer is in flight', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    vi.restoreAllMocks();
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function setUp(
    beforeTake: (p: number) => Promise<void>,
    options: { partitions?: number; beforeRelease?: (p: number) => Promise<void> } = {},
  ) {
    const { partitions = 1, beforeRelease = () => Promise.resolve() } = options;
    const key = `aob-flight-${randomUUID().slice(0, 8)}`;
    const redis = createClient({ url: REDIS_URL });
    await redis.connect();
    cleanups.push(async () => {
      for (const k of await redis.keys(`${key}*`)) await redis.del(k);
      await redis.quit();
    });
    // The instance's clock: real time, moved ahead by `ahead` ms when the test says.
    let ahead = 0;
    const realNow = Date.now.bind(Date);
    vi.spyOn(Date, 'now').mockImplementation(() => realNow() + ahead);
    const gate = new Gate();
    const reports: string[] = [];
    const said = new Map<string, number>();
    // Partitions whose open runs the instance was told to forget, in order.
    const dropped: number[] = [];
    const reader = new ManualReader();
    const meter = new MeterProvider({ readers: [reader] }).getMeter('test');
    /** The instance's ownership changes by kind (`agent_bridge.partitions.changes`). */
    const changeCounts = async () => {
      const { resourceMetrics } = await reader.collect();
      const metric = resourceMetrics.scopeMetrics
        .flatMap((m) => m.metrics)
        .find((m) => m.descriptor.name === 'agent_bridge.partitions.changes');
      return Object.fromEntries(
        ((metric?.dataPoints ?? []) as DataPoint<number>[]).map((p) => [
          String(p.attributes['agent_bridge.partition.change']),
          p.value,
        ]),
      );
    };
    // Each message applied, with the number of ownerships said so far.
    const applied: { text: string; epoch: number }[] = [];
    const owned = () => reports.filter((r) => r.startsWith('owns partition 0')).length;
    const source: BrokerSource = createPartitionedSource({
      partitions,
      leaseMillis: LEASE_MILLIS,
      description: 'test',
      keepAliveMillis: undefined,
      store: async (): Promise<LeaseStore> => {
        const real = await createRedisLeaseStore({
          url: REDIS_URL,
          prefix: `${key}:bridge`,
          instanceId: 'one',
          leaseMillis: LEASE_MILLIS,
        });
        return {
          heartbeat: () => real.heartbeat(),
          acquire: (p) => real.acquire(p),
          renew: async (p) => {
            const ok = await real.renew(p);
            await gate.pass();
            if (gate.failing !== undefined) throw gate.failing;
            const answer = gate.refusing.has(p) ? false : (gate.answer ?? ok);
            if (!answer) gate.refused += 1;
            gate.answeredAt = performance.now();
            return answer;
          },
          release: (p) => real.release(p),
          close: () => real.close(),
        };
      },
      partitionSource: (p, drained) =>
        createRedisSource({
          url: REDIS_URL,
          stream: `${key}:${p}`,
          group: 'bridge',
          consumer: 'one',
          claimIdleMillis: 0,
          batchSize: 100,
          drained,
        }),
      beforeTake,
      beforeRelease,
      dropped: (p) => dropped.push(p),
      meter,
      report: (message) => {
        reports.push(message);
        // When each was said, on a clock the test does not move.
        said.set(message.split(':')[0]!, performance.now());
      },
    });
    await source.open();
    const running = source.run(
      (text, delivery) => {
        applied.push({ text, epoch: owned() });
        delivery.ack();
      },
      () => true,
    );
    cleanups.push(async () => {
      gate.release();
      source.stop();
      await running.catch(() => undefined);
      await source.close();
    });
    const publish = async (from: number, to: number) => {
      const batch = redis.multi();
      for (let i = from; i < to; i += 1) batch.xAdd(`${key}:0`, '*', { event: `m${i}` });
      await batch.exec();
    };
    const changes = () =>
      reports
        .filter((r) => /^(owns|lost|cannot read|handed) partition/.test(r))
        .map((r) => r.replace(/ of \d+/, ''));
    return {
      dropped,
      changeCounts,
      said,
      source,
      running,
      gate,
      applied,
      publish,
      changes,
      moveClockAhead: (millis: number) => (ahead += millis),
    };
  }

  it('steps down an ownership whose renewal is answered after its act window ended, though the lease was renewed', async () => {
    const { dropped, changeCounts, said, source, gate, applied, publish, changes, moveClockAhead } =
      await setUp(() => Promise.resolve());
    await waitFor(() => changes().length === 1, 10_000, 'owned');
    await publish(0, 5);
    await waitFor(() => applied.length === 5, 10_000, 'the first five applied');
    // The next renewal reaches Redis; its answer waits. Meanwhile the instance's clock passes the
    // act window (¾ of the lease since that renewal was sent) without any time passing.
    gate.close();
    await waitFor(() => gate.waiting > 0, 10_000, 'a renewal in flight');
    // Asked before each acknowledgement and checkpoint save: yes until the window ends, and never
    // for a partition it does not own.
    expect([source.mayAct?.(0), source.mayAct?.(1)]).toEqual([true, false]);
    moveClockAhead(LEASE_MILLIS * 0.8);
    expect(source.mayAct?.(0)).toBe(false);
    gate.release();
    await waitFor(() => changes().length >= 2, 10_000, 'the ownership stepped down');
    // Stepped down at that renewal's answer.
    const steppedDownAt = gate.answeredAt;
    expect(changes()[1]).toBe('lost partition 0 (epoch 1): its lease could not be renewed in time');
    await publish(5, 10);
    // It let the lease go: the same instance takes the partition again after its cool-down and
    // applies what waited, once, in order.
    await waitFor(() => applied.length >= 10, 15_000, 'the rest applied under the next ownership');
    expect(changes().map((c) => c.split(':')[0])).toEqual([
      'owns partition 0 (epoch 1)',
      'lost partition 0 (epoch 1)',
      'owns partition 0 (epoch 2)',
    ]);
    // Not taken back for a lease time at least (its cool-down: one to two lease times).
    expect(said.get('owns partition 0 of 1 (epoch 2)')! - steppedDownAt).toBeGreaterThanOrEqual(
      LEASE_MILLIS,
    );
    // Its open runs forgotten once, at the step-down; each change counted by its kind.
    expect(dropped).toEqual([0]);
    expect(await changeCounts()).toEqual({ taken: 2, lost: 1 });
    expect(applied).toEqual([
      ...Array.from({ length: 5 }, (_, i) => ({ text: `m${i}`, epoch: 1 })),
      ...Array.from({ length: 5 }, (_, i) => ({ text: `m${i + 5}`, epoch: 2 })),
    ]);
  }, 40_000);

  it('reads nothing under an ownership lost while its runs were being restored, and says it lost it without ever owning it', async () => {
    let restoring: (() => void) | undefined;
    let takes = 0;
    const { dropped, changeCounts, said, source, gate, applied, publish, changes } = await setUp(
      () => {
        takes += 1;
        // The first take's restore waits for the test; later ones do not.
        return takes === 1
          ? new Promise<void>((resolve) => (restoring = resolve))
          : Promise.resolve();
      },
    );
    // Nothing owned yet (the first take waits half a lease): nothing read is owed.
    expect(source.readToEnd?.()).toBe(Infinity);
    await publish(0, 5);
    const publishedAt = Date.now();
    await waitFor(() => restoring !== undefined, 10_000, 'the first take restoring');
    // A partition being taken counts as read to no time at all: nothing of it is read yet.
    expect(source.readToEnd?.()).toBe(-Infinity);
    // Its lease is refused at the next renewal while the restore is in flight.
    gate.answer = false;
    await waitFor(() => gate.refused > 0, 10_000, 'a renewal refused');
    gate.answer = undefined;
    // Stepped down at that answer.
    const steppedDownAt = gate.answeredAt;
    expect(changes()).toEqual([]);
    restoring!();
    await waitFor(
      () => applied.length >= 5,
      15_000,
      'the messages applied under the next ownership',
    );
    expect(changes().map((c) => c.split(':')[0])).toEqual([
      'lost partition 0 (epoch 1)',
      'owns partition 0 (epoch 2)',
    ]);
    expect(changes()[0]).toBe('lost partition 0 (epoch 1): its lease expired or was taken');
    // Not taken back for a lease time at least (its cool-down: one to two lease times).
    expect(said.get('owns partition 0 of 1 (epoch 2)')! - steppedDownAt).toBeGreaterThanOrEqual(
      LEASE_MILLIS,
    );
    expect(dropped).toEqual([0]);
    expect(await changeCounts()).toEqual({ taken: 1, lost: 1 });
    // Read to the end since a read sent after the messages were published, and no later than now.
    await waitFor(
      () => (source.readToEnd?.() ?? -Infinity) >= publishedAt,
      10_000,
      'the partition read to the end',
    );
    expect(source.readToEnd?.()).toBeLessThanOrEqual(Date.now());
    expect(applied).toEqual(Array.from({ length: 5 }, (_, i) => ({ text: `m${i}`, epoch: 1 })));
  }, 40_000);

  it("hands over on stop only the partitions it still holds: one lost during another's hand-over is not settled or handed over", async () => {
    let settling: (() => void) | undefined;
    const settled: number[] = [];
    const { dropped, changeCounts, source, running, gate, changes } = await setUp(
      () => Promise.resolve(),
      {
        partitions: 2,
        beforeRelease: (p) => {
          settled.push(p);
          // The first hand-over's settling waits for the test.
          return settled.length === 1
            ? new Promise<void>((resolve) => (settling = resolve))
            : Promise.resolve();
        },
      },
    );
    await waitFor(() => changes().length === 2, 10_000, 'both partitions owned');
    const [first, second] = changes().map((c) => Number(/partition (\d)/.exec(c)![1]));
    source.stop();
    await waitFor(() => settling !== undefined, 10_000, 'the first hand-over settling');
    // While the first is being settled, the second's lease is refused at a renewal.
    gate.refusing.add(second!);
    await waitFor(() => gate.refused > 0, 10_000, "the second partition's renewal refused");
    settling!();
    await running;
    expect(settled).toEqual([first]);
    // Each partition's open runs forgotten once: the first handed over, the second lost.
    expect(dropped).toEqual([first, second]);
    expect(await changeCounts()).toEqual({ taken: 2, handed_over: 1, lost: 1 });
    expect(
      changes()
        .slice(2)
        .map((c) => c.split(':')[0]),
    ).toEqual([`handed partition ${first} over (epoch 1)`, `lost partition ${second} (epoch 1)`]);
  }, 40_000);

  it('steps down an ownership whose renewal fails at the broker, and reads on once renewals work', async () => {
    const { dropped, gate, applied, publish, changes } = await setUp(() => Promise.resolve());
    await waitFor(() => changes().length === 1, 10_000, 'owned');
    await publish(0, 3);
    await waitFor(() => applied.length === 3, 10_000, 'the first three applied');
    gate.failing = new Error('connection lost');
    await waitFor(() => changes().length >= 2, 10_000, 'the ownership stepped down');
    gate.failing = undefined;
    expect(changes()[1]).toBe('lost partition 0 (epoch 1): its lease expired or was taken');
    await publish(3, 6);
    await waitFor(() => applied.length >= 6, 15_000, 'the rest applied under the next ownership');
    expect(changes().map((c) => c.split(':')[0])).toEqual([
      'owns partition 0 (epoch 1)',
      'lost partition 0 (epoch 1)',
      'owns partition 0 (epoch 2)',
    ]);
    expect(dropped).toEqual([0]);
    expect(applied.map((a) => a.text)).toEqual(Array.from({ length: 6 }, (_, i) => `m${i}`));
  }, 40_000);
});
