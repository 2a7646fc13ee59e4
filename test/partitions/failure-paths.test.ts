// The failure paths of partition ownership, on the real Redis of this machine, each fault made in
// the broker itself: a lease another instance took while this one held it (its renewal refused),
// and a take whose restore fails (a foreign key of the wrong type among the checkpoints). In each,
// nothing is applied while the partition is not surely this instance's, the ownership says what
// happened, and once the fault is gone the partition is read again from where it was left: every
// message applied once, in order.
import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { afterEach, describe, expect, it } from 'vitest';
import { createRedisCheckpointStore } from '../../src/checkpoints/redis-checkpoint-store.js';
import { createPartitionedSource } from '../../src/partitions/partitioned-source.js';
import { createRedisLeaseStore, redisLeaseKey } from '../../src/partitions/redis-lease-store.js';
import type { BrokerSource } from '../../src/sources/broker-source.js';
import { createRedisSource } from '../../src/sources/redis-source.js';
import { REDIS_URL } from '../helpers/brokers.js';
import { waitFor } from '../helpers/wire-spans.js';

const LEASE_MILLIS = 900;

type Client = ReturnType<typeof createClient>;

describe('partition ownership when the broker refuses', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function setUp(beforeTake: (p: number) => Promise<void>, sourceUrl = REDIS_URL) {
    const key = `aob-fail-${randomUUID().slice(0, 8)}`;
    const redis: Client = createClient({ url: REDIS_URL });
    await redis.connect();
    cleanups.push(async () => {
      for (const k of await redis.keys(`${key}*`)) await redis.del(k);
      await redis.quit();
    });
    const reports: string[] = [];
    const applied: string[] = [];
    const source: BrokerSource = createPartitionedSource({
      partitions: 1,
      leaseMillis: LEASE_MILLIS,
      description: 'test',
      keepAliveMillis: undefined,
      store: () =>
        createRedisLeaseStore({
          url: REDIS_URL,
          prefix: `${key}:bridge`,
          instanceId: 'one',
          leaseMillis: LEASE_MILLIS,
        }),
      partitionSource: (p) =>
        createRedisSource({
          url: sourceUrl,
          stream: `${key}:${p}`,
          group: 'bridge',
          consumer: 'one',
          claimIdleMillis: 0,
          batchSize: 100,
        }),
      beforeTake,
      beforeRelease: () => Promise.resolve(),
      dropped: () => undefined,
      report: (message) => reports.push(message),
    });
    await source.open();
    const running = source.run(
      (text, delivery) => {
        applied.push(text);
        delivery.ack();
      },
      () => true,
    );
    cleanups.push(async () => {
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
        .filter((r) => /^(owns|lost|cannot read) partition/.test(r))
        .map((r) => r.split(':')[0]);
    return { key, redis, reports, applied, publish, changes };
  }

  it('steps down when another instance took its lease, applies nothing meanwhile, and reads on once it is free', async () => {
    const { key, redis, applied, publish, changes } = await setUp(() => Promise.resolve());
    await waitFor(() => changes().length === 1, 10_000, 'owned');
    await publish(0, 10);
    await waitFor(() => applied.length === 10, 10_000, 'the first ten applied');
    // Another instance's lease, for two lease times: the next renewal is refused.
    await redis.set(redisLeaseKey(`${key}:bridge`, 0), 'other/999', { PX: LEASE_MILLIS * 2 });
    await waitFor(() => changes().length === 2, 10_000, 'the partition lost');
    await publish(10, 20);
    // While the other instance's lease lives, nothing is read.
    await waitFor(
      async () =>
        (await redis.exists(redisLeaseKey(`${key}:bridge`, 0))) === 0 || changes().length > 2,
      10_000,
      "the other instance's lease gone",
    );
    expect(applied).toHaveLength(10);
    await waitFor(
      () => applied.length >= 20,
      15_000,
      'the rest applied once the partition is owned again',
    );
    expect(changes()).toEqual([
      'owns partition 0 of 1 (epoch 1)',
      'lost partition 0 (epoch 1)',
      'owns partition 0 of 1 (epoch 2)',
    ]);
    expect(applied).toEqual(Array.from({ length: 20 }, (_, i) => `m${i}`));
  }, 40_000);

  it('releases a partition whose restore fails, says why, reads nothing of it, and takes it once it can', async () => {
    const prefix = `aob-fail-cp-${randomUUID().slice(0, 8)}`;
    const checkpoints = await createRedisCheckpointStore({
      url: REDIS_URL,
      prefix,
      ttlMillis: 60_000,
    });
    const foreign = `${prefix}:run:p0:foreign`;
    const helper: Client = createClient({ url: REDIS_URL });
    await helper.connect();
    // A key of another type among the checkpoints: reading it fails (WRONGTYPE).
    await helper.hSet(foreign, 'a', 'b');
    cleanups.push(async () => {
      await helper.del(foreign);
      await helper.quit();
      await checkpoints.close();
    });
    let restores = 0;
    const { applied, publish, changes, reports } = await setUp(async (p) => {
      restores += 1;
      await checkpoints.load(`p${p}`);
    });
    await publish(0, 10);
    await waitFor(() => changes().length >= 2, 10_000, 'a take refused twice');
    expect(changes().every((c) => c === 'cannot read partition 0')).toBe(true);
    expect(reports.find((r) => r.startsWith('cannot read partition 0'))).toMatch(/WRONGTYPE/);
    expect(applied).toEqual([]);
    await helper.del(foreign);
    await waitFor(() => applied.length >= 10, 15_000, 'everything applied once the restore works');
    expect(changes().at(-1)).toMatch(/^owns partition 0 of 1/);
    expect(applied).toEqual(Array.from({ length: 10 }, (_, i) => `m${i}`));
    expect(restores).toBeGreaterThan(2);
  }, 40_000);

  it('reads on from where it was when the first reads of a taken partition are refused, and skips nothing', async () => {
    // The partition's reader may create its group but not read (NOPERM), then may.
    const admin: Client = createClient({ url: REDIS_URL });
    await admin.connect();
    const user = `aob-read-${randomUUID().slice(0, 8)}`;
    await admin.sendCommand(['ACL', 'SETUSER', user, 'on', '>pw', '~*', '+@all', '-xreadgroup']);
    cleanups.push(async () => {
      await admin.sendCommand(['ACL', 'DELUSER', user]);
      await admin.quit();
    });
    const url = new URL(REDIS_URL);
    url.username = user;
    url.password = 'pw';
    const { applied, publish, changes, redis, key } = await setUp(
      () => Promise.resolve(),
      url.toString(),
    );
    // Entries left pending by a consumer of the same name before (a restart after a crash).
    await publish(0, 5);
    await redis.xGroupCreate(`${key}:0`, 'bridge', '0').catch(() => undefined);
    await redis.xReadGroup('bridge', 'one', { key: `${key}:0`, id: '>' }, { COUNT: 3 });
    await publish(5, 10);
    await waitFor(() => changes().length >= 1, 10_000, 'owned');
    await new Promise((r) => setTimeout(r, LEASE_MILLIS));
    expect(applied).toEqual([]);
    await admin.sendCommand(['ACL', 'SETUSER', user, '+xreadgroup']);
    await waitFor(() => applied.length >= 10, 15_000, 'everything applied once reading works');
    await publish(10, 15);
    await waitFor(() => applied.length >= 15, 15_000, 'what follows applied');
    expect(applied).toEqual(Array.from({ length: 15 }, (_, i) => `m${i}`));
  }, 40_000);
});
