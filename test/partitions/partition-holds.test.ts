// A partition's consumer that lost messages in flight (a NATS pull that failed) holds its own runs,
// not every run of the instance: the partitioned source names the partition in each hold it
// passes on, and lets it go when told to. Leases on the real Redis of this machine; each
// partition's source is a stand-in that holds as a NATS source does after a failed pull (a real
// failed pull is made in test/sources/nats-failed-pull.test.ts), since only the naming is tested.
import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { describe, expect, it } from 'vitest';
import { createPartitionedSource } from '../../src/partitions/partitioned-source.js';
import { createRedisLeaseStore } from '../../src/partitions/redis-lease-store.js';
import type { BrokerSource } from '../../src/sources/broker-source.js';
import { REDIS_URL } from '../helpers/brokers.js';
import { waitFor } from '../helpers/wire-spans.js';

const LEASE_MILLIS = 900;
const PARTITIONS = 4;

/** A partition's source that holds for `100 × (p + 1)` ms as it starts, lets go, and waits. */
function holdingSource(p: number): BrokerSource {
  let stop: () => void = () => undefined;
  return {
    description: `partition ${p}`,
    keepAliveMillis: undefined,
    open: () => Promise.resolve(),
    async run(_onMessage, _canPull, _readWindow, holdFor) {
      const letGo = holdFor?.(100 * (p + 1));
      await new Promise<void>((resolve) => (stop = resolve));
      letGo?.();
    },
    stop: () => stop(),
    close: () => Promise.resolve(),
  };
}

describe('holds of a partitioned source', () => {
  it('names the partition whose messages are on their way back, and lets each go', async () => {
    const key = `aob-holds-${randomUUID().slice(0, 8)}`;
    const holds: { millis: number; lane: number | undefined; letGo: boolean }[] = [];
    const source = createPartitionedSource({
      partitions: PARTITIONS,
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
      partitionSource: (p) => holdingSource(p),
      beforeTake: () => Promise.resolve(),
      beforeRelease: () => Promise.resolve(),
      dropped: () => undefined,
      report: () => undefined,
    });
    await source.open();
    const running = source.run(
      () => undefined,
      () => true,
      undefined,
      (millis, lane) => {
        const hold = { millis, lane, letGo: false };
        holds.push(hold);
        return () => (hold.letGo = true);
      },
    );
    try {
      await waitFor(() => holds.length === PARTITIONS, 10_000, 'a hold from every partition');
      expect(holds.map(({ millis, lane }) => [millis, lane]).sort()).toEqual(
        Array.from({ length: PARTITIONS }, (_, p) => [100 * (p + 1), p]).sort(),
      );
      expect(holds.some((h) => h.letGo)).toBe(false);
    } finally {
      source.stop();
      await running;
      await source.close();
      const redis = createClient({ url: REDIS_URL });
      await redis.connect();
      for (const k of await redis.keys(`${key}*`)) await redis.del(k);
      await redis.quit();
    }
    // Handed over as the source stopped: each partition's source let go of its hold.
    expect(holds.every((h) => h.letGo)).toBe(true);
  });
});
