// An owner whose event loop stalls past its lease must not apply what it reads afterwards: by then
// the lease may have expired and another instance may own the partition and rebuild the same runs
// (two owners exporting one run is how one span id gets two contents). Real Redis streams and
// leases; the stall is a busy wait inside the first message's handler. The messages it leaves stay
// pending in the group for the next owner, here the same instance once its old lease expired.
import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { afterEach, describe, expect, it } from 'vitest';
import type { BrokerSource } from '../../src/sources/broker-source.js';
import { REDIS_URL } from '../helpers/brokers.js';
import { redisPartitionInstance } from '../helpers/redis-partitions.js';
import { waitFor } from '../helpers/wire-spans.js';

const LEASE_MILLIS = 900;

function instance(key: string, id: string, reports: string[]): BrokerSource {
  return redisPartitionInstance({
    key,
    id,
    partitions: 1,
    leaseMillis: LEASE_MILLIS,
    batchSize: 100,
    report: (message) => reports.push(message),
  });
}

describe('a partition owner that stalls past its lease', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('leaves what it reads after the stall unapplied, drops the partition and applies it when owning it again', async () => {
    const key = `aob-stall-${randomUUID().slice(0, 8)}`;
    const redis = createClient({ url: REDIS_URL });
    await redis.connect();
    cleanups.push(async () => {
      for (const k of await redis.keys(`${key}*`)) await redis.del(k);
      await redis.quit();
    });
    const applied: { text: string; epoch: number }[] = [];
    const reports: string[] = [];
    const takes = () => reports.filter((r) => r.startsWith('owns partition 0')).length;
    const source = instance(key, 'stalling', reports);
    await source.open();
    let stalled = false;
    const running = source.run(
      (text, delivery) => {
        applied.push({ text, epoch: takes() });
        delivery.ack();
        if (!stalled) {
          stalled = true;
          // The event loop stops for longer than the lease: no renewal can run meanwhile.
          const until = Date.now() + LEASE_MILLIS * 1.5;
          while (Date.now() < until);
        }
      },
      () => true,
    );
    cleanups.push(async () => {
      source.stop();
      await running.catch(() => undefined);
      await source.close();
    });
    await waitFor(() => takes() === 1, 10_000, 'owned');
    // One batch of 20 messages: the first one stalls, the 19 after it come too late.
    const batch = redis.multi();
    for (let i = 0; i < 20; i += 1) batch.xAdd(`${key}:0`, '*', { event: `m${i}` });
    await batch.exec();
    await waitFor(() => takes() === 2, 10_000, 'the partition lost and taken again');
    // In the ownership that stalled only m0 was applied; the rest waited, pending in the group,
    // and came back when the partition was owned again (here by the same instance, alone).
    expect(
      reports.filter((r) => /^(owns|lost) partition 0/.test(r)).map((r) => r.split(':')[0]),
    ).toEqual([
      'owns partition 0 of 1 (epoch 1)',
      'lost partition 0 (epoch 1)',
      'owns partition 0 of 1 (epoch 2)',
    ]);
    await waitFor(() => applied.length >= 20, 10_000, 'every message applied');
    expect(applied.filter((a) => a.epoch === 1).map((a) => a.text)).toEqual(['m0']);
    expect(applied.filter((a) => a.epoch === 2).map((a) => a.text)).toEqual(
      Array.from({ length: 19 }, (_, i) => `m${i + 1}`),
    );
  }, 40_000);
});
