// The lease stores on the real NATS JetStream and Redis of this machine: every time lives in the
// broker, never in an instance's clock; each ownership has an epoch that no earlier ownership
// shares, so a stale owner (even one with the same instance id) cannot renew what another took;
// membership counts each live instance once, however the listing interleaves with writes.
import { randomUUID } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { createClient } from 'redis';
import { afterEach, describe, expect, it } from 'vitest';
import type { LeaseStore } from '../../src/partitions/lease-store.js';
import { createNatsLeaseStore } from '../../src/partitions/nats-lease-store.js';
import { createRedisLeaseStore, redisLeaseKey } from '../../src/partitions/redis-lease-store.js';
import { NATS_URL, REDIS_URL } from '../helpers/brokers.js';
import { waitFor } from '../helpers/wire-spans.js';

const LEASE_MILLIS = 600;

interface Broker {
  store(instanceId: string): Promise<LeaseStore>;
  cleanup(): Promise<void>;
}

function natsBroker(): Broker {
  const bucket = `aob-leases-${randomUUID().slice(0, 8)}`;
  const connections: { drain(): Promise<void> }[] = [];
  return {
    async store(instanceId) {
      const connection = await connect({ servers: NATS_URL });
      connections.push(connection);
      return createNatsLeaseStore({ connection, bucket, instanceId, leaseMillis: LEASE_MILLIS });
    },
    async cleanup() {
      for (const c of connections) await c.drain().catch(() => undefined);
      const nc = await connect({ servers: NATS_URL });
      await (await jetstreamManager(nc)).streams.delete(`KV_${bucket}`).catch(() => undefined);
      await nc.drain();
    },
  };
}

const redisPrefix = () => `aob:leases:${randomUUID().slice(0, 8)}`;

function redisBroker(prefix = redisPrefix()): Broker {
  return {
    store: (instanceId) =>
      createRedisLeaseStore({ url: REDIS_URL, prefix, instanceId, leaseMillis: LEASE_MILLIS }),
    async cleanup() {
      const client = createClient({ url: REDIS_URL });
      await client.connect();
      for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 }))
        if (keys.length > 0) await client.del(keys);
      client.destroy();
    },
  };
}

describe.each([
  ['NATS JetStream', natsBroker],
  ['Redis', () => redisBroker()],
] as const)('%s lease store', (_name, makeBroker) => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const open = async (broker: Broker, id: string) => {
    const store = await broker.store(id);
    cleanups.push(() => store.close());
    return store;
  };

  it('gives each ownership a larger epoch, and a stale owner with the same id cannot renew', async () => {
    const broker = makeBroker();
    cleanups.push(() => broker.cleanup());
    const before = await open(broker, 'same-id');
    const first = await before.acquire(0);
    expect(first).toBeGreaterThan(0);
    expect(await before.acquire(0)).toBeUndefined();
    // The owner stalls past its lease; the same instance id, restarted, takes the partition.
    const after = await open(broker, 'same-id');
    let second: number | undefined;
    await waitFor(
      async () => (second = await after.acquire(0)) !== undefined,
      LEASE_MILLIS * 10,
      'the lapsed lease taken again',
    );
    expect(second).toBeGreaterThan(first!);
    // A stale owner that has not yet learned it lost the lease releases it: the new owner's
    // lease stays.
    await before.release(0);
    expect(await open(broker, 'third').then((s) => s.acquire(0))).toBeUndefined();
    expect(await after.renew(0)).toBe(true);
    expect(await before.renew(0)).toBe(false);
    // Nor does a release after its renewal was refused.
    await before.release(0);
    expect(await open(broker, 'fourth').then((s) => s.acquire(0))).toBeUndefined();
  });

  it('frees a released lease at once for another instance, and renews or releases only what it holds', async () => {
    const broker = makeBroker();
    cleanups.push(() => broker.cleanup());
    const a = await open(broker, 'a');
    const b = await open(broker, 'b');
    expect(await a.renew(3)).toBe(false);
    const epoch = await a.acquire(3);
    expect(epoch).toBeGreaterThan(0);
    expect(await b.acquire(3)).toBeUndefined();
    expect(await b.renew(3)).toBe(false);
    // b's release of a lease it does not hold leaves a's.
    await b.release(3);
    expect(await b.acquire(3)).toBeUndefined();
    expect(await a.renew(3)).toBe(true);
    // a's release frees it now, not a lease time later; a holds it no more.
    await a.release(3);
    expect(await b.acquire(3)).toBeGreaterThan(epoch!);
    expect(await a.renew(3)).toBe(false);
  });

  it('counts a member until it leaves, and not after', async () => {
    const broker = makeBroker();
    cleanups.push(() => broker.cleanup());
    const a = await open(broker, 'a');
    const b = await broker.store('b.with spaces');
    await a.heartbeat();
    expect(await b.heartbeat()).toBe(2);
    await b.close();
    expect(await a.heartbeat()).toBe(1);
  });

  it('counts each live instance once while all of them heartbeat at once', async () => {
    const broker = makeBroker();
    cleanups.push(() => broker.cleanup());
    const stores = await Promise.all(['a', 'b', 'c'].map((id) => open(broker, id)));
    const counts: number[] = [];
    for (let round = 0; round < 60; round += 1)
      counts.push(...(await Promise.all(stores.map((s) => s.heartbeat()))));
    expect(Math.max(...counts)).toBe(3);
    expect(counts.slice(-3)).toEqual([3, 3, 3]);
    // One leaves: after a lease time it is no longer counted.
    await stores[2]!.close();
    await waitFor(
      async () => (await stores[0]!.heartbeat()) === 2,
      LEASE_MILLIS * 10,
      'the member that left no longer counted',
    );
  });
});

describe('Redis lease store, times from the server', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('does not count a member dated by a clock running ahead, nor keep it alive', async () => {
    const prefix = redisPrefix();
    const broker = redisBroker(prefix);
    cleanups.push(() => broker.cleanup());
    const client = createClient({ url: REDIS_URL });
    await client.connect();
    cleanups.push(() => Promise.resolve(client.destroy()));
    // What a dead member whose clock ran an hour ahead left behind.
    await client.zAdd(`${prefix}:members`, { score: Date.now() + 3_600_000, value: 'ahead' });
    const store = await broker.store('live');
    cleanups.push(() => store.close());
    expect(await store.heartbeat()).toBe(1);
    expect(await client.zScore(`${prefix}:members`, 'ahead')).toBeNull();
  });

  it('gives a lease key without an expiry one, so the partition is taken after a lease time', async () => {
    const prefix = redisPrefix();
    const broker = redisBroker(prefix);
    cleanups.push(() => broker.cleanup());
    const client = createClient({ url: REDIS_URL });
    await client.connect();
    cleanups.push(() => Promise.resolve(client.destroy()));
    await client.set(redisLeaseKey(prefix, 3), 'left-by-hand');
    const store = await broker.store('live');
    cleanups.push(() => store.close());
    expect(await store.acquire(3)).toBeUndefined();
    const ttl = await client.pTTL(redisLeaseKey(prefix, 3));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(LEASE_MILLIS);
    await waitFor(
      async () => (await store.acquire(3)) !== undefined,
      LEASE_MILLIS * 10,
      'the lease without an expiry taken',
    );
  });
});
